import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// How `serve` reads its flags and variables into a ``ServerConfiguration``.
extension ServeCommand {
    /// The key and salt pairs, from flags or comma-separated variables.
    func signatures(env: (String) -> String?) throws -> [URLSignature] {
        func list(_ flags: [String], _ name: String) -> [String] {
            flags.isEmpty ? (env(name)?.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } ?? []) : flags
        }
        let keys = list(key, "KEY"), salts = list(salt, "SALT")
        guard !keys.isEmpty || !salts.isEmpty else {
            if signatureSize != nil || env("SIGNATURE_SIZE") != nil { throw ValidationError("--signature-size needs --key") }
            return []
        }
        // One salt may serve every key; otherwise they pair in order.
        guard !keys.isEmpty, salts.count <= 1 || salts.count == keys.count else {
            throw ValidationError("--key and --salt pair in order: \(keys.count) key(s), \(salts.count) salt(s)")
        }
        var size = 32
        if let text = signatureSize.map(String.init) ?? env("SIGNATURE_SIZE") {
            guard let value = Int(text), (1...32).contains(value) else { throw ValidationError("--signature-size \(text): expected 1 to 32 bytes") }
            size = value
        }
        return try keys.enumerated().map { index, key in
            do {
                return try URLSignature(hexKey: key, hexSalt: salts.count == keys.count ? salts[index] : salts.first ?? "", size: size)
            } catch {
                throw ValidationError("--key/--salt (pair \(index + 1)): \(error)")
            }
        }
    }

    /// The configuration from flags, then `DARKROOM_*` variables, then
    /// defaults: each setting of the table reads its own (``ServeSettings``).
    func serverConfiguration(environment original: [String: String]) throws -> ServerConfiguration {
        let input = SettingInput(command: self, environment: ImgproxyEnvironment(original).merged(into: original))
        var c = ServerConfiguration()
        for setting in ServeSettings.all {
            try setting.read?(input, &c)
        }
        return c
    }

    /// Which formats Accept chooses: `DARKROOM_AUTO_WEBP`, `_AUTO_AVIF`,
    /// `_AUTO_JXL` and `DARKROOM_ENFORCE_*` (imgproxy's switches, read
    /// through its names too), where set; AVIF and WebP automatic otherwise.
    func negotiation(env: (String) -> String?, jpegXL: Bool) throws -> FormatNegotiation {
        var negotiation = FormatNegotiation()
        for (format, name) in [(ImageFormat.webp, "WEBP"), (.avif, "AVIF"), (.jxl, "JXL")] {
            if let text = env("AUTO_\(name)") {
                if try Self.boolean(text, "DARKROOM_AUTO_\(name)") { negotiation.automatic.insert(format) } else { negotiation.automatic.remove(format) }
            }
            if let text = env("ENFORCE_\(name)"), try Self.boolean(text, "DARKROOM_ENFORCE_\(name)") { negotiation.enforced.insert(format) }
        }
        if !jpegXL, negotiation.automatic.contains(.jxl) || negotiation.enforced.contains(.jxl) {
            throw ValidationError("DARKROOM_AUTO_JXL and DARKROOM_ENFORCE_JXL need --jpeg-xl (libvips marks its JPEG XL codec untrusted)")
        }
        return negotiation
    }

    /// Go's boolean forms, as imgproxy reads them, and yes/no.
    static func boolean(_ text: String, _ name: String) throws -> Bool {
        guard let value = ["true": true, "t": true, "1": true, "yes": true, "false": false, "f": false, "0": false, "no": false][text.lowercased()] else {
            throw ValidationError("\(name) \(text): expected true or false")
        }
        return value
    }

    /// `HOST:PORT` (`[::1]:9090` for IPv6, `:9090` for every address).
    static func address(_ text: String, flag: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("\(flag) \(text): expected HOST:PORT, such as 127.0.0.1:9090")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }

    /// `--log-format`, else `DARKROOM_LOG_FORMAT`; text by default.
    func logFormat(env: (String) -> String?) throws -> JSONLogHandler.Format {
        guard let text = logFormat ?? env("LOG_FORMAT") else { return .text }
        guard let format = JSONLogHandler.Format(rawValue: text.lowercased()) else {
            throw ValidationError("--log-format \(text): expected text or json")
        }
        return format
    }

    /// The shared cache's configuration: where, which store, whose keys.
    static func sharedCache(_ text: String, endpoint: String?, environment: [String: String]) throws -> SharedResultCache.Configuration {
        let location: S3Location
        do {
            location = try S3Location(parsing: text)
        } catch {
            throw ValidationError("--result-cache: \(error.reason)")
        }
        let (url, credentials) = try S3Store.resolve(endpoint: endpoint, environment: environment, flag: "--result-cache")
        return SharedResultCache.Configuration(location: location, endpoint: url, credentials: credentials)
    }
}
