import Crypto
public import Foundation
import _CryptoExtras

/// How a server rewrites the source a URL names, as imgproxy's
/// `IMGPROXY_URL_REPLACEMENTS`, `IMGPROXY_BASE_URL` and
/// `IMGPROXY_BASE64_URL_INCLUDES_FILENAME` do.
public struct SourceRules: Sendable, Hashable {
    /// Each a wildcard pattern matched at the start of the source (`*`
    /// matches within one path segment) and its replacement, where `$1`...
    /// are what the wildcards matched; applied in order.
    public var replacements: [Replacement] = []
    /// Put before every source that does not start with it already.
    public var baseURL: String?
    /// The last segment of a base64 source is a file name, not part of it.
    public var base64IncludesFilename = false
    /// The replacements and the base URL apply to `wmu` and `fiu` too
    /// (imgproxy Pro's `IMGPROXY_WATERMARK_PREPROCESS_URL` and
    /// `IMGPROXY_FALLBACK_IMAGE_PREPROCESS_URL`).
    public var rewritesWatermarkURLs = false
    public var rewritesFallbackURLs = false
    /// The AES key (16, 24 or 32 bytes) that `/enc/` sources are encrypted
    /// with (imgproxy Pro's `IMGPROXY_SOURCE_URL_ENCRYPTION_KEY`).
    public var encryptionKey: [UInt8]?

    public struct Replacement: Sendable, Hashable {
        public var pattern: String
        public var replacement: String

        public init(pattern: String, replacement: String) {
            self.pattern = pattern
            self.replacement = replacement
        }

        /// The pattern as an anchored expression: literal text, and a group
        /// of anything but `/` for each `*`.
        var expression: NSRegularExpression? {
            let parts = pattern.components(separatedBy: "*").map(NSRegularExpression.escapedPattern(for:))
            return try? NSRegularExpression(pattern: "^" + parts.joined(separator: "([^/]*)"))
        }
    }

    public init(replacements: [Replacement] = [], baseURL: String? = nil, base64IncludesFilename: Bool = false) {
        self.replacements = replacements
        self.baseURL = baseURL
        self.base64IncludesFilename = base64IncludesFilename
    }

    /// Parses imgproxy's `pattern=replacement;...` list.
    public static func replacements(from text: String) throws -> [Replacement] {
        try text.split(separator: ";").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty else {
                throw SourceRulesError(description: "'\(pair)' is not pattern=replacement")
            }
            return Replacement(pattern: String(parts[0]), replacement: String(parts[1]))
        }
    }

    /// An `/enc/` source: base64url of a 16-byte IV and the URL encrypted
    /// with AES-CBC under ``encryptionKey``, PKCS #7 padded. Every failure
    /// reads as a source that could not be had (``EncryptedSource``), so the
    /// answers tell nothing about the padding.
    func decrypted(_ text: String) throws(ImageURLError) -> String {
        guard let key = encryptionKey else {
            throw .init("encrypted source URLs (/enc/) need the server's key (darkroom serve --source-url-encryption-key)")
        }
        guard let data = Data(base64URLEncoded: text), data.count >= 32, data.count % 16 == 0,
              let iv = try? AES._CBC.IV(ivBytes: data.prefix(16)),
              let plain = try? AES._CBC.decrypt(data.dropFirst(16), using: SymmetricKey(data: key), iv: iv),
              let url = String(data: plain, encoding: .utf8)
        else { throw .init(EncryptedSource.reason) }
        return url
    }

    /// The source after the replacements and the base URL.
    func rewritten(_ source: String) -> String {
        var text = source
        for replacement in replacements {
            guard let expression = replacement.expression else { continue }
            let range = NSRange(text.startIndex..., in: text)
            text = expression.stringByReplacingMatches(in: text, range: range, withTemplate: replacement.replacement)
        }
        if let baseURL, !baseURL.isEmpty, !text.hasPrefix(baseURL) { text = baseURL + text }
        return text
    }
}

extension ImageURLOptions {
    /// A watermark's or fallback's URL scheme that Darkroom fetches; with
    /// `relative`, none too (a path the server's rules may complete).
    static func takesScheme(of url: URL, relative: Bool = false) -> Bool {
        guard let scheme = url.scheme?.lowercased() else { return relative }
        return ["http", "https", "local", "s3"].contains(scheme)
    }

    /// `wmu` and `fiu` rewritten as sources are, where the server says so;
    /// each must then have a scheme Darkroom fetches.
    mutating func rewriteURLs(by rules: SourceRules) throws(ImageURLError) {
        func rewritten(_ url: URL?, _ name: String, _ applies: Bool, _ setting: String) throws(ImageURLError) -> URL? {
            guard let url else { return nil }
            let result = applies ? URL(string: rules.rewritten(url.absoluteString)) ?? url : url
            guard Self.takesScheme(of: result) else {
                throw .init("option '\(name)': '\(url.absoluteString.prefix(60))' is not an http, https, local or s3 URL"
                            + (applies ? "" : " (a relative one needs the server's base URL and \(setting))"))
            }
            return result
        }
        watermarkURL = try rewritten(watermarkURL, "wmu", rules.rewritesWatermarkURLs, "IMGPROXY_WATERMARK_PREPROCESS_URL")
        fallbackImageURL = try rewritten(fallbackImageURL, "fiu", rules.rewritesFallbackURLs, "IMGPROXY_FALLBACK_IMAGE_PREPROCESS_URL")
    }
}

struct SourceRulesError: Error, CustomStringConvertible {
    let description: String
}
