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

    /// A temporary credential's token (`AWS_SESSION_TOKEN`), signed and
    /// sent as `x-amz-security-token`; nil for a long-lived key.
    public var sessionToken: String?

    /// As every S3 tool finds them: `AWS_ACCESS_KEY_ID` and
    /// `AWS_SECRET_ACCESS_KEY` (and `AWS_SESSION_TOKEN`), else the
    /// `AWS_PROFILE` profile (`default`) of the shared credentials file
    /// (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`); the
    /// region from `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's
    /// `region` in the config file (`AWS_CONFIG_FILE`, else
    /// `~/.aws/config`), else `us-east-1`. A machine's instance role is not
    /// asked: Darkroom never reaches the metadata address.
    public static func fromEnvironment(_ environment: [String: String]) throws(DarkroomError) -> S3Credentials {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let home = value("HOME") ?? NSHomeDirectory()
        let profile = value("AWS_PROFILE") ?? "default"
        let file = value("AWS_SHARED_CREDENTIALS_FILE") ?? home + "/.aws/credentials"
        let config = value("AWS_CONFIG_FILE") ?? home + "/.aws/config"
        // The config file names profiles "profile NAME", but for default.
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION")
            ?? Self.section(profile == "default" ? "default" : "profile \(profile)", in: config)?["region"]
            ?? Self.section(profile, in: config)?["region"] ?? "us-east-1"
        if let id = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") {
            var credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret, region: region)
            credentials.sessionToken = value("AWS_SESSION_TOKEN")
            return credentials
        }
        if let keys = Self.section(profile, in: file), let id = keys["aws_access_key_id"], let secret = keys["aws_secret_access_key"] {
            var credentials = S3Credentials(accessKeyID: id, secretAccessKey: secret, region: region)
            credentials.sessionToken = keys["aws_session_token"]
            return credentials
        }
        throw DarkroomError(.invalidOption, "S3 needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment, or the profile '\(profile)' in the shared credentials file (AWS_SHARED_CREDENTIALS_FILE, ~/.aws/credentials)")
    }

    /// The `key = value` lines of `[name]` in an INI file, keys lowercased;
    /// nil when the file or the section is not there. Files over 1 MB are
    /// not read.
    static func section(_ name: String, in path: String) -> [String: String]? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let size = attributes[.size] as? Int, size <= 1_000_000,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        var current: String?
        var found: [String: String]?
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = line.dropFirst().dropLast().trimmingCharacters(in: .whitespaces)
                if current == name, found == nil { found = [:] }
                continue
            }
            guard current == name, let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            found?[key] = value
        }
        return found
    }
}
