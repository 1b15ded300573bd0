import Foundation

/// imgproxy Pro's `style`: CSS put first inside an SVG source's root
/// element, as a `<style>` element, before the document is sanitised, so
/// that the sanitiser checks it as it checks any style sheet.
enum SVGStyle {
    /// `data` with `css` as its root element's first child; nil when no
    /// root element's start tag is found (then nothing is added).
    static func prepending(_ css: String, to data: Data) -> Data? {
        let bytes = [UInt8](data)
        guard let root = rootStartTag(bytes) else { return nil }
        // A CDATA section cannot hold "]]>": it is split across two.
        let text = "<style><![CDATA[" + css.replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>") + "]]></style>"
        var out = Data()
        out.reserveCapacity(bytes.count + text.utf8.count + 16)
        if root.selfClosing {
            // `<svg .../>` becomes `<svg ...>STYLE</svg>`.
            out.append(contentsOf: bytes[..<(root.end - 1)])
            out.append(contentsOf: Array(">".utf8) + Array(text.utf8) + Array("</\(root.name)>".utf8))
        } else {
            out.append(contentsOf: bytes[...root.end])
            out.append(contentsOf: Array(text.utf8))
        }
        out.append(contentsOf: bytes[(root.end + 1)...])
        return out
    }

    /// The root element's name, the index of the `>` that ends its start
    /// tag, and whether it closes itself; past the XML declaration,
    /// processing instructions, comments and a DOCTYPE.
    static func rootStartTag(_ bytes: [UInt8]) -> (name: String, end: Int, selfClosing: Bool)? {
        var i = 0
        // Compared in place: a long comment is skipped without a copy a byte.
        func starts(_ text: String) -> Bool {
            let t = text.utf8
            return i + t.count <= bytes.count && bytes[i..<(i + t.count)].elementsEqual(t)
        }
        func skip(past text: String) -> Bool {
            let t = text.utf8
            while i + t.count <= bytes.count {
                if bytes[i..<(i + t.count)].elementsEqual(t) {
                    i += t.count
                    return true
                }
                i += 1
            }
            return false
        }
        if starts("\u{FEFF}") { i += 3 }
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            case UInt8(ascii: "<"):
                if starts("<?") {
                    guard skip(past: "?>") else { return nil }
                } else if starts("<!--") {
                    guard skip(past: "-->") else { return nil }
                } else if starts("<!") {
                    // A DOCTYPE; one with an internal subset the sanitiser refuses.
                    guard let end = SVGSanitizer.doctypeEnd(bytes, from: i) else { return nil }
                    i = end
                } else {
                    return element(bytes, from: i)
                }
            default: return nil
            }
        }
        return nil
    }

    /// The start tag at `start` (its `<`): name and end, quotes respected.
    private static func element(_ bytes: [UInt8], from start: Int) -> (name: String, end: Int, selfClosing: Bool)? {
        var i = start + 1
        let delimiters: Set<UInt8> = [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: "/"), UInt8(ascii: ">")]
        while i < bytes.count, !delimiters.contains(bytes[i]) { i += 1 }
        guard i > start + 1, let name = String(bytes: bytes[(start + 1)..<i], encoding: .utf8) else { return nil }
        var quote: UInt8?
        while i < bytes.count {
            let byte = bytes[i]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                return (name, i, bytes[i - 1] == UInt8(ascii: "/"))
            }
            i += 1
        }
        return nil
    }
}
