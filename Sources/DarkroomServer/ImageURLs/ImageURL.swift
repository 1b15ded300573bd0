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
    /// Each chained pipeline's options (imgproxy Pro's `-`), when there is
    /// more than one: their steps, in turn, take the place of ``options``'.
    public var pipelines: [ImageURLOptions]?
    public var source: URL
    /// The extension asked for, if any ("jpg", "webp", "auto"...).
    public var requestedExtension: String?
    /// The source came encrypted (`/enc/`): no answer may show it.
    public var sourceIsEncrypted = false

    /// Parses the path after `/img` (starting with `/`).
    ///
    /// - Parameters:
    ///   - presets: named option strings for `pr:`/`preset:`; the one named
    ///     `default` applies to every URL.
    ///   - onlyPresets: the options are one segment of preset names
    ///     (`thumb:blurry`), as imgproxy's presets-only mode; nothing else.
    /// - Throws: ``ImageURLError`` naming what is wrong.
    public init(path: String, presets: [String: String] = [:], onlyPresets: Bool = false, now: Date = Date()) throws(ImageURLError) {
        try self.init(path: path, context: ImageURLOptions.Context(presets: presets, now: now), onlyPresets: onlyPresets)
    }

    /// Parses the path after `/img` with everything the server allows and
    /// rewrites (see ``ImageURLOptions/Context`` and ``SourceRules``).
    public init(path: String, context: ImageURLOptions.Context, onlyPresets: Bool = false,
                sources: SourceRules = SourceRules()) throws(ImageURLError) {
        let parts = try Parts(path: path, onlyPresets: onlyPresets, sources: sources)
        signature = parts.signature
        signedPath = parts.signedPath
        source = parts.source
        requestedExtension = parts.requestedExtension
        sourceIsEncrypted = parts.sourceIsEncrypted
        let groups = try ImageURLOptions.pipelines(parts.optionSegments, context: context)
        options = try ImageURLOptions(pipeline: groups.flatMap { $0 }, context: context, first: true)
        if groups.count > 1 {
            var each: [ImageURLOptions] = []
            for (index, group) in groups.enumerated() {
                each.append(try ImageURLOptions(pipeline: group, context: context, first: index == 0))
            }
            pipelines = each
        }
        try options.rewriteURLs(by: sources)
        if var each = pipelines {
            for index in each.indices { try each[index].rewriteURLs(by: sources) }
            pipelines = each
        }
    }

    /// An image URL's parts before its options are read: `/info` URLs
    /// share them and read other options.
    struct Parts {
        var signature: String
        var signedPath: String
        var optionSegments: [String] = []
        var source: URL
        var requestedExtension: String?
        var sourceIsEncrypted = false

        init(path: String, onlyPresets: Bool, sources: SourceRules) throws(ImageURLError) {
            guard let (signature, signedPath) = ImageURL.split(path) else {
                throw .init("the URL has no signature and source; expected /img/{signature}/{options}/plain/{source}")
            }
            self.signature = String(signature)
            self.signedPath = String(signedPath)
            let segments = signedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            if let first = segments.first, Resize.Mode(rawValue: first) != nil {
                throw .init("it looks like the deprecated basic URL format (/{signature}/{type}/{width}/...), which is not supported")
            }

            // Options run until "plain" or the first segment that is not an
            // option; in presets-only mode they are the first segment alone.
            var index = 0
            if onlyPresets {
                guard segments.count > 1 else { throw .init("the URL has no source after its presets") }
                optionSegments = segments[0].isEmpty ? [] : ["pr:" + ImageURL.repaired(option: segments[0])]
                index = 1
            } else {
                while index < segments.count, ImageURL.isOption(ImageURL.repaired(option: segments[index])) {
                    optionSegments.append(ImageURL.repaired(option: segments[index]))
                    index += 1
                }
            }
            guard index < segments.count else {
                throw .init("the URL has no source after its options")
            }
            if segments[index] == "plain" {
                var text = segments[(index + 1)...].joined(separator: "/")
                if let at = ImageURL.extensionMark(in: text) {
                    requestedExtension = String(text[text.index(after: at)...])
                    text = String(text[..<at])
                    guard ImageURL.extensionMark(in: text) == nil else {
                        throw .init("the source has more than one @extension (write '@' in the source as %40)")
                    }
                }
                guard !text.isEmpty else { throw .init("the plain source URL is empty") }
                guard let decoded = text.removingPercentEncoding else {
                    throw .init("the plain source has a bad percent-escape ('%' must be followed by two hex digits)")
                }
                let rewritten = sources.rewritten(ImageURL.repaired(source: decoded))
                guard let url = URL(string: rewritten) ?? URL(string: sources.rewritten(ImageURL.repaired(source: text))) else {
                    throw .init("the source '\(decoded)' is not a URL")
                }
                source = url
            } else if segments[index] == "enc" {
                // imgproxy Pro's encrypted source: base64url of IV + AES-CBC.
                var parts = Array(segments[(index + 1)...])
                if sources.base64IncludesFilename, parts.count > 1 { parts.removeLast() }
                var text = parts.joined()
                if let dot = text.lastIndex(of: ".") {
                    requestedExtension = String(text[text.index(after: dot)...])
                    text = String(text[..<dot])
                }
                let decrypted = try sources.decrypted(text)
                guard let url = URL(string: sources.rewritten(decrypted)) else {
                    throw .init(EncryptedSource.reason)
                }
                source = url
                sourceIsEncrypted = true
            } else {
                var parts = Array(segments[index...])
                // The last segment a file name for the page's sake, where the
                // server says so (IMGPROXY_BASE64_URL_INCLUDES_FILENAME).
                if sources.base64IncludesFilename, parts.count > 1 { parts.removeLast() }
                var text = parts.joined()
                if let dot = text.lastIndex(of: ".") {
                    requestedExtension = String(text[text.index(after: dot)...])
                    text = String(text[..<dot])
                }
                guard let data = Data(base64URLEncoded: text), let decoded = String(data: data, encoding: .utf8),
                      let url = URL(string: sources.rewritten(decoded)) else {
                    throw .init("the source segment '\(text.prefix(40))' is not a base64url-encoded URL (use /plain/ for a plain URL)")
                }
                source = url
            }
            if requestedExtension?.isEmpty == true { requestedExtension = nil }
        }
    }

    /// The signature segment and the path it signs (from the `/` after it),
    /// without parsing anything else: a server that signs checks the
    /// signature before it reads options or presets, so an unsigned client
    /// learns nothing about them. Nil when there is no segment after the
    /// signature.
    public static func split(_ path: String) -> (signature: Substring, signedPath: Substring)? {
        let body = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
        guard let slash = body.firstIndex(of: "/"), slash != body.startIndex else { return nil }
        return (body[..<slash], body[slash...])
    }

    /// An option segment with `%3A` read as `:`, as imgproxy does for
    /// clients that escape the colons.
    static func repaired(option segment: String) -> String {
        segment.contains("%3") ? segment.replacingOccurrences(of: "%3A", with: ":").replacingOccurrences(of: "%3a", with: ":") : segment
    }

    /// An http(s) source whose `://` lost a slash on the way (`http:/host`,
    /// as some proxies merge slashes) with the slash back.
    static func repaired(source text: String) -> String {
        for scheme in ["http:/", "https:/"] where text.hasPrefix(scheme) {
            let rest = text.dropFirst(scheme.count)
            return rest.hasPrefix("/") || rest.isEmpty ? text : scheme + "/" + rest
        }
        return text
    }

    /// The `@` that starts a plain source's extension: the last one with no
    /// `/` after it.
    private static func extensionMark(in text: String) -> String.Index? {
        guard let at = text.lastIndex(of: "@"), !text[text.index(after: at)...].contains("/") else { return nil }
        return at
    }

    /// Option segments have a colon (`rs:fill:300`); `sepia` and `grayscale`
    /// alone are options too, since a base64 source is an encoded http(s)
    /// URL and so starts "aHR0c".
    static func isOption(_ segment: String) -> Bool {
        segment != "plain" && (segment.contains(":") || segment == "grayscale" || segment == "sepia" || segment == "-")
    }
}

/// What is wrong with an image URL, as a sentence for a 400 answer.
public struct ImageURLError: Error, Sendable, Hashable, CustomStringConvertible {
    public let message: String
    init(_ message: String) { self.message = message }
    public var description: String { message }
}
