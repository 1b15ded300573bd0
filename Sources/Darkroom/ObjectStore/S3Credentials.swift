import Foundation

/// Who signs S3 requests, and for which region.
public struct S3Credentials: Sendable, Hashable {
    public var accessKeyID: String
    public var secretAccessKey: String
    public var region: String

    public init(accessKeyID: String, secretAccessKey: String, region: String = "us-east-1") {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.region = region
    }

    /// From the variables every S3 tool reads: `AWS_ACCESS_KEY_ID`,
    /// `AWS_SECRET_ACCESS_KEY` and `AWS_REGION` (default `us-east-1`).
    public static func fromEnvironment(_ environment: [String: String]) throws(DarkroomError) -> S3Credentials {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard let id = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw DarkroomError(.invalidOption, "S3 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment")
        }
        return S3Credentials(accessKeyID: id, secretAccessKey: secret, region: value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1")
    }
}
