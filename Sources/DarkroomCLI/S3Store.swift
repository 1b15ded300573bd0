import ArgumentParser
import Darkroom
import Foundation

/// The S3 store a command talks to, from `--s3-endpoint` (or
/// `AWS_ENDPOINT_URL`, else AWS's own for the region) and the usual `AWS_*`
/// credentials; `flag` names the option that needs it, in the errors.
enum S3Store {
    static func resolve(endpoint: String?, environment: [String: String], flag: String) throws -> (URL, S3Credentials) {
        let credentials: S3Credentials
        do {
            credentials = try S3Credentials.fromEnvironment(environment)
        } catch {
            throw ValidationError("\(flag): \(error.reason)")
        }
        guard let endpoint else { return (S3Client.Configuration.endpoint(from: environment, region: credentials.region), credentials) }
        guard let url = URL(string: endpoint), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--s3-endpoint \(endpoint): expected an http(s) URL such as http://127.0.0.1:8333")
        }
        return (url, credentials)
    }
}
