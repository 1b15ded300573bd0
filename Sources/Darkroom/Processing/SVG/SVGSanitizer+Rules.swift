import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What the sanitizer removes, and the parser's errors in words.
extension SVGSanitizer {
    // MARK: - What is removed

    static let svgNamespace = "http://www.w3.org/2000/svg"

    /// Elements dropped with their whole subtree, matched by local name in any
    /// namespace: script carriers, HTML embedding/navigation/form elements,
    /// and media elements that fetch their sources.
    static let removedElements: Set<String> = [
        "script", "handler", "listener", "foreignobject",
        "iframe", "frame", "frameset", "form", "embed", "object", "applet",
        "base", "link", "meta", "audio", "video", "source", "track",
    ]

    /// Namespaces whose elements can carry active content or pull in other
    /// documents when an SVG is shown by a browser or librsvg: XHTML
    /// (img onerror, iframes), MathML (links), XML Events (handlers), XSLT, and
    /// XInclude (librsvg's xi:include reads files).
    static let removedNamespaces: Set<String> = [
        "http://www.w3.org/1999/xhtml",
        "http://www.w3.org/1998/Math/MathML",
        "http://www.w3.org/2001/xml-events",
        "http://www.w3.org/1999/XSL/Transform",
        "http://www.w3.org/2001/XInclude",
    ]

    /// SMIL elements that can rewrite another attribute at run time; they are
    /// dropped when they target href or an event handler, which would get
    /// around the attribute filtering.
    static let animationElements: Set<String> = [
        "animate", "set", "animatecolor", "animatemotion", "animatetransform",
    ]

    /// Whether an href may stay: only same-document fragments, or raster
    /// `data:image/` URLs on elements other than <use>. Everything else —
    /// javascript:, data:text/html, file:, http:, relative paths — is removed,
    /// so the renderer never runs script nor fetches a file or the network.
    /// `admits` decides whether a raster data: image may stay (its size
    /// and cost, ``EmbeddedImageBudget``).
    static func isSafeHref(_ value: String, element: String, admits: (Substring) -> Bool = { _ in true }) -> Bool {
        let trimmed = trimControlAndSpace(value)
        if trimmed.hasPrefix("#") { return trimmed.count > 1 }
        // <use> must reference the same document (imgproxy's rule too).
        if element == "use" { return false }
        let lower = asciiLowercased(trimmed)
        return isRasterDataImage(lower) && admits(trimmed)
    }

    /// data:image/ in PNG, JPEG, GIF or WebP: an embedded SVG would be
    /// drawn without having been sanitised.
    static func isRasterDataImage(_ lower: String) -> Bool {
        // Only the raster formats librsvg hands to its own decoders: any
        // other type goes to gdk-pixbuf's loaders, one of them SVG again.
        ["png", "jpeg", "gif", "webp"].contains { type in
            lower.hasPrefix("data:image/\(type);") || lower.hasPrefix("data:image/\(type),")
        }
    }

    /// Strips what browsers ignore around a URL (whitespace and C0/C1 controls),
    /// so " \u{1}javascript:" is judged as "javascript:".
    static func trimControlAndSpace(_ s: String) -> Substring {
        func junk(_ u: Unicode.Scalar) -> Bool {
            u.value <= 0x20 || (0x7F...0x9F).contains(u.value) || u.properties.isWhitespace
        }
        let scalars = s.unicodeScalars
        guard let first = scalars.firstIndex(where: { !junk($0) }),
              let last = scalars.lastIndex(where: { !junk($0) }) else { return "" }
        return Substring(scalars[first...last])
    }

    static func asciiLowercased<S: StringProtocol>(_ s: S) -> String {
        String(decoding: s.utf8.map(asciiLower), as: UTF8.self)
    }

    /// Whether CSS text (a <style> sheet, a style attribute or a presentation
    /// attribute) is free of anything that loads an external resource.
    /// `url()` may only point at a `#fragment` or a raster data: image.
    /// Backslashes are refused outright because CSS escapes can spell
    /// `url(` or `@import` so that no plain-text check sees them.
    static func isSafeCSS(_ text: String, isStyleSheet: Bool, admits: (Substring) -> Bool = { _ in true }) -> Bool {
        let bytes = Array(text.utf8)
        let lower = bytes.map(asciiLower)
        if lower.contains(UInt8(ascii: "\\")) {
            // In attributes a backslash without a function call cannot fetch.
            if isStyleSheet || lower.contains(UInt8(ascii: "(")) { return false }
        }
        if isStyleSheet, firstIndex(of: Array("@import".utf8), in: lower, from: 0) != nil {
            return false
        }
        // Functions that fetch with a plain string argument, or (old IE) run script.
        for fn in ["image-set(", "src(", "expression("] where firstIndex(of: Array(fn.utf8), in: lower, from: 0) != nil {
            return false
        }
        var from = 0
        let urlOpen = Array("url(".utf8)
        while let at = firstIndex(of: urlOpen, in: lower, from: from) {
            var i = at + urlOpen.count
            while i < lower.count, isXMLSpace(lower[i]) || lower[i] == 0x0C { i += 1 }
            var quote: UInt8? = nil
            if i < lower.count, lower[i] == UInt8(ascii: "\"") || lower[i] == UInt8(ascii: "'") {
                quote = lower[i]
                i += 1
            }
            var j = i
            while j < lower.count, lower[j] != (quote ?? UInt8(ascii: ")")) { j += 1 }
            let target = String(decoding: lower[i..<j], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            if !(target.hasPrefix("#") || isRasterDataImage(target)) { return false }
            if !target.hasPrefix("#"), !admits(Substring(String(decoding: bytes[i..<j], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))) {
                return false
            }
            from = j
        }
        return true
    }

    // MARK: - Parser errors

    /// Messages for the libxml2 error codes hostile or broken SVGs hit most;
    /// others fall back to the name of the XMLParser error code.
    static let parserMessages: [Int: String] = [
        1: "internal parser error",
        4: "the document is empty",
        5: "extra content after the root element",
        9: "invalid character",
        26: "reference to an undefined entity",
        27: "reference to an undeclared entity",
        41: "attribute without a value",
        42: "attribute given twice",
        73: "'>' expected",
        76: "an end tag does not match its start tag",
        77: "a tag is not finished",
        85: "elements are not properly nested",
        86: "extra content after the root element",
        89: "entity reference loop",
        201: "a namespace prefix is used but not declared",
    ]

    static func describeParserError(_ code: Int) -> String {
        if let message = parserMessages[code] { return "\(message) (libxml2 error \(code))" }
        if let known = XMLParser.ErrorCode(rawValue: code) {
            // "tagNameMismatchError" -> "tag name mismatch"
            var words = ""
            for ch in String(describing: known).replacingOccurrences(of: "Error", with: "") {
                if ch.isUppercase { words += " " + ch.lowercased() } else { words.append(ch) }
            }
            return "\(words.trimmingCharacters(in: .whitespaces)) (libxml2 error \(code))"
        }
        return "libxml2 error \(code)"
    }
}
