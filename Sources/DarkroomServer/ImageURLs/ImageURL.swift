import Darkroom
public import Foundation

/// An image URL in imgproxy's format, under the server's `/img` prefix:
///
///     /img/{signature}/{options}/plain/{source URL, percent-encoded if needed}[@{ext}]
///     /img/{signature}/{options}/{base64url source URL, may be split by /}[.{ext}]
///
/// Options are `name:arg:arg` segments (see ``ImageURLOptions``).
public struct ImageURL: Sendable, Hashable {
    public var signature: String
    /// The path after the signature segment, as sent: what the signature signs.
    public var signedPath: String
    public var options: ImageURLOptions
    public var source: URL
    /// The extension asked for, if any ("jpg", "webp", "auto"...).
    public var requestedExtension: String?

    /// Parses the path after `/img` (starting with `/`).
    ///
    /// - Parameter presets: named option strings for `pr:`/`preset:`.
    /// - Throws: ``ImageURLError`` naming what is wrong.
    public init(path: String, presets: [String: String] = [:], now: Date = Date()) throws(ImageURLError) {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if segments.first == "" { segments.removeFirst() }
        guard segments.count >= 2, !segments[0].isEmpty else {
            throw .init("the URL has no signature and source; expected /img/{signature}/{options}/plain/{source}")
        }
        signature = segments[0]
        signedPath = "/" + segments.dropFirst().joined(separator: "/")

        // Options run until "plain" or the first segment that is not an option.
        var index = 1
        var optionSegments: [String] = []
        while index < segments.count, Self.isOption(segments[index]) {
            optionSegments.append(segments[index])
            index += 1
        }
        guard index < segments.count else {
            throw .init("the URL has no source after its options")
        }
        if segments[index] == "plain" {
            var text = segments[(index + 1)...].joined(separator: "/")
            if let at = text.lastIndex(of: "@"), !text[text.index(after: at)...].contains("/") {
                requestedExtension = String(text[text.index(after: at)...])
                text = String(text[..<at])
            }
            guard !text.isEmpty else { throw .init("the plain source URL is empty") }
            let decoded = text.removingPercentEncoding ?? text
            guard let url = URL(string: decoded) ?? URL(string: text) else {
                throw .init("the source '\(decoded)' is not a URL")
            }
            source = url
        } else {
            var text = segments[index...].joined()
            if let dot = text.lastIndex(of: ".") {
                requestedExtension = String(text[text.index(after: dot)...])
                text = String(text[..<dot])
            }
            guard let data = Data(base64URLEncoded: text), let decoded = String(data: data, encoding: .utf8),
                  let url = URL(string: decoded) else {
                throw .init("the source segment '\(text.prefix(40))' is not a base64url-encoded URL (use /plain/ for a plain URL)")
            }
            source = url
        }
        if requestedExtension?.isEmpty == true { requestedExtension = nil }
        options = try ImageURLOptions(segments: optionSegments, presets: presets, now: now)
    }

    /// Option segments have a colon (`rs:fill:300`); `sepia` and `grayscale`
    /// alone are options too, since a base64 source is an encoded http(s)
    /// URL and so starts "aHR0c".
    static func isOption(_ segment: String) -> Bool {
        segment != "plain" && (segment.contains(":") || segment == "grayscale" || segment == "sepia")
    }
}

/// What is wrong with an image URL, as a sentence for a 400 answer.
public struct ImageURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
