import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Rebuilds an untrusted SVG document from XML parser events, keeping only
/// content that cannot run script or make the renderer fetch anything.
///
/// The output is written from scratch (never copied from the input bytes), so
/// anything the parser did not report as an element, attribute or text —
/// DOCTYPE, comments, processing instructions — cannot survive.
struct SVGSanitizer {
    struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        enum Kind: Sendable, Equatable {
            case tooLarge, unsupportedEncoding, dtd, notWellFormed, tooDeep, notSVG
        }

        let kind: Kind
        /// A sentence saying what was wrong with the input.
        let reason: String

        init(_ kind: Kind, _ reason: String) {
            self.kind = kind
            self.reason = reason
        }

        var description: String { reason }
    }

    /// A sanitised document and the size its root element gives.
    struct Sanitized: Sendable {
        var data: Data
        /// From the root's `width` and `height` (in px or unitless), else
        /// its `viewBox`; 0 where neither says.
        var width: Int
        var height: Int
    }

    /// Returns a sanitized copy of `data`, or throws saying why the input was refused.
    ///
    /// - Parameters:
    ///   - maxDepth: deepest element nesting accepted. The push parser behind
    ///     XMLParser enforces no depth limit of its own, so this is the only one.
    ///   - maxBytes: largest input accepted, checked before any parsing.
    ///   - embedded: the limits each `data:` image is held to, and all of
    ///     them together (``EmbeddedImageBudget``).
    static func sanitized(
        _ data: Data, maxDepth: Int = 256, maxBytes: Int, embedded: EmbeddedImageLimits = .init(.default)
    ) throws(Failure) -> Data {
        try sanitize(data, maxDepth: maxDepth, maxBytes: maxBytes, embedded: embedded, precheck: true).data
    }

    /// ``sanitized(_:maxDepth:maxBytes:embedded:)`` with the document's size.
    static func sanitizedDocument(_ data: Data, maxDepth: Int = 256, maxBytes: Int,
                                  embedded: EmbeddedImageLimits = .init(.default)) throws(Failure) -> Sanitized {
        try sanitize(data, maxDepth: maxDepth, maxBytes: maxBytes, embedded: embedded, precheck: true)
    }

    /// The size the root's attributes give, in whole pixels (0 unknown).
    static func size(of root: [String: String]) -> (width: Int, height: Int) {
        func pixels(_ text: String?) -> Double? {
            guard var text = text?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            if text.hasSuffix("px") { text.removeLast(2) }
            guard let value = Double(text), value.isFinite, value > 0 else { return nil }
            return value
        }
        let box = root["viewBox"]?.split(whereSeparator: { $0 == " " || $0 == "," }).compactMap { Double($0) }
        let boxSize = box?.count == 4 && box![2].isFinite && box![3].isFinite && box![2] > 0 && box![3] > 0 ? (box![2], box![3]) : nil
        let width = pixels(root["width"]) ?? boxSize?.0 ?? 0
        let height = pixels(root["height"]) ?? boxSize?.1 ?? 0
        func whole(_ value: Double) -> Int { value >= Double(Int32.max) ? Int(Int32.max) : Int(value.rounded(.up)) }
        return (whole(width), whole(height))
    }

    /// `precheck: false` exists only so tests can show what the parser itself
    /// does with hostile DTDs; production callers always go through the precheck.
    static func sanitize(
        _ data: Data, maxDepth: Int, maxBytes: Int, embedded: EmbeddedImageLimits = .init(.default), precheck: Bool
    ) throws(Failure) -> Sanitized {
        if data.count > maxBytes {
            throw Failure(.tooLarge, "the SVG is \(data.count) bytes, more than the limit of \(maxBytes)")
        }
        if precheck {
            try checkRawBytes([UInt8](data))
        }

        let builder = Builder(maxDepth: maxDepth, embedded: embedded)
        let parser = XMLParser(data: data)
        // Keep qualified names (xlink:href, xmlns:xlink) exactly as written.
        parser.shouldProcessNamespaces = false
        parser.shouldReportNamespacePrefixes = false
        // Never load external DTDs or entities; with this off the parser also
        // routes entity loads to a loader that refuses them.
        parser.shouldResolveExternalEntities = false
        parser.externalEntityResolvingPolicy = .never
        parser.delegate = builder
        let ok = parser.parse()
        parser.delegate = nil

        if let failure = builder.failure {
            throw failure
        }
        if !ok {
            // The parser stopped without reporting anything we could act on.
            let code = (parser.parserError as NSError?)?.code ?? -1
            if !(Builder.ignorableWarnings.contains(code) && builder.finishedRoot) {
                throw Failure(.notWellFormed, "the SVG is not well-formed XML: \(describeParserError(code)) at line \(parser.lineNumber)")
            }
        }
        guard builder.finishedRoot else {
            throw Failure(.notWellFormed, "the SVG is not well-formed XML: it has no complete root element")
        }
        let size = size(of: builder.rootAttributes)
        return Sanitized(data: Data(builder.out.utf8), width: size.width, height: size.height)
    }

    // MARK: - Checks on the raw bytes

    /// Encodings whose bytes for ASCII characters are the ASCII bytes
    /// themselves, so the byte scan below sees what the parser will see.
    /// Anything else (UTF-16, UTF-7, EBCDIC, ...) could hide `<!ENTITY` from it.
    static let asciiCompatibleEncodings: Set<String> = [
        "utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "iso_8859-1", "latin1", "latin-1",
    ]

    /// Refuses, before the parser runs, anything that could make it expand
    /// entities or load a DTD: the callbacks for entity declarations are not
    /// wired up in every Foundation, so they cannot be the only guard.
    static func checkRawBytes(_ bytes: [UInt8]) throws(Failure) {
        if bytes.isEmpty {
            throw Failure(.notWellFormed, "the SVG is empty")
        }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw Failure(.unsupportedEncoding, "the SVG is UTF-16 encoded; only UTF-8 is accepted")
        }
        // NUL is never legal XML; it also betrays UTF-16/32 without a BOM.
        if bytes.contains(0) {
            throw Failure(.unsupportedEncoding, "the SVG contains NUL bytes; only UTF-8 is accepted")
        }
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, isXMLSpace(bytes[start]) { start += 1 }
        guard start < bytes.count, bytes[start] == UInt8(ascii: "<") else {
            throw Failure(.notWellFormed, "the SVG is not well-formed XML: it does not start with '<'")
        }
        if let encoding = declaredEncoding(bytes, from: start),
           !asciiCompatibleEncodings.contains(encoding.lowercased()) {
            throw Failure(.unsupportedEncoding, "the SVG declares encoding \"\(encoding)\"; only UTF-8, US-ASCII and ISO-8859-1 are accepted")
        }
        // Entity declarations are what billion-laughs and XXE need. Refused
        // wherever they appear, even in a comment, rather than parsing DTD syntax.
        if firstIndex(of: Array("<!ENTITY".utf8), in: bytes, from: 0) != nil {
            throw Failure(.dtd, "the SVG declares a DTD (entities are not allowed)")
        }
        // A DOCTYPE naming only an external DTD is common in exported SVGs; it is
        // never loaded and is dropped from the output. An internal subset
        // ("[...]") can declare entities, default attributes and parameter
        // entities, so it is refused.
        // Each DOCTYPE is scanned once, from its start to its end: the scan
        // goes on after it, so the check is linear in the document.
        var from = 0
        while let at = firstIndex(of: Array("<!DOCTYPE".utf8), in: bytes, from: from) {
            guard let end = doctypeEnd(bytes, from: at + 9) else {
                throw Failure(.dtd, "the SVG declares a DTD with an internal subset (entities and other declarations are not allowed)")
            }
            from = end
        }
    }

    static func isXMLSpace(_ b: UInt8) -> Bool {
        b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D
    }

    static func asciiLower(_ b: UInt8) -> UInt8 {
        (b >= 0x41 && b <= 0x5A) ? b + 0x20 : b
    }

    /// Case-insensitive (ASCII) search; the parser is case-sensitive, so this
    /// only ever refuses more than it has to.
    static func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from: Int) -> Int? {
        let needle = pattern.map(asciiLower)
        guard let first = needle.first, bytes.count >= needle.count else { return nil }
        var i = from
        let last = bytes.count - needle.count
        while i <= last {
            if asciiLower(bytes[i]) == first {
                var j = 1
                while j < needle.count, asciiLower(bytes[i + j]) == needle[j] { j += 1 }
                if j == needle.count { return i }
            }
            i += 1
        }
        return nil
    }

    /// Where a DOCTYPE that names at most an external DTD ends (after its
    /// '>'), or nil when a '[' opens an internal subset outside a quoted
    /// identifier, or it never ends.
    static func doctypeEnd(_ bytes: [UInt8], from: Int) -> Int? {
        var quote: UInt8? = nil
        var i = from
        while i < bytes.count {
            let b = bytes[i]
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: "[") {
                return nil
            } else if b == UInt8(ascii: ">") {
                return i + 1
            }
            i += 1
        }
        return nil
    }

    /// The `encoding="..."` of an XML declaration at `start`, if there is one.
    static func declaredEncoding(_ bytes: [UInt8], from start: Int) -> String? {
        let prefix = Array("<?xml".utf8)
        guard bytes.count > start + prefix.count,
              Array(bytes[start..<start + prefix.count]) == prefix,
              isXMLSpace(bytes[start + prefix.count]),
              let end = firstIndex(of: Array("?>".utf8), in: bytes, from: start)
        else { return nil }
        let decl = String(decoding: bytes[start..<end], as: UTF8.self)
        guard let key = decl.range(of: "encoding") else { return nil }
        var rest = decl[key.upperBound...].drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard rest.first == "=" else { return String(rest) }
        rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard let q = rest.first, q == "\"" || q == "'" else { return String(rest) }
        return String(rest.dropFirst().prefix(while: { $0 != q }))
    }

}
