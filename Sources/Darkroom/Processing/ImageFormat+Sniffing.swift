import Foundation

extension ImageFormat {
    /// What the first bytes of some data say it is.
    public enum Sniffed: Sendable, Hashable {
        /// An image in a format Darkroom reads.
        case image(ImageFormat)
        /// Something that is not an image Darkroom reads, with its name
        /// (such as "an HTML page" or "a PDF document").
        case notAnImage(String)
        case empty
    }

    /// Identifies data by its magic bytes, never by a name or a Content-Type.
    public static func sniff<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Sniffed {
        let head = Array(bytes.prefix(64))
        guard !head.isEmpty else { return .empty }
        func starts(_ magic: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + magic.count && Array(head[offset..<offset + magic.count]) == magic
        }
        func ascii(_ text: String, at offset: Int = 0) -> Bool { starts(Array(text.utf8), at: offset) }

        if starts([0xFF, 0xD8, 0xFF]) { return .image(.jpeg) }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .image(.png) }
        if ascii("GIF87a") || ascii("GIF89a") { return .image(.gif) }
        if ascii("RIFF") && ascii("WEBP", at: 8) { return .image(.webp) }
        // JPEG XL: a bare codestream, or the ISO box container.
        if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) { return .image(.jxl) }
        if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A]) { return .image(.tiff) }
        if ascii("ftyp", at: 4), head.count >= 12 {
            let brand = String(decoding: head[8..<12], as: UTF8.self)
            switch brand {
            case "avif", "avis": return .image(.avif)
            case "heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1": return .image(.heic)
            // MP4, QuickTime, 3GPP and their kin: read only where video
            // thumbnails are turned on, refused there otherwise.
            case "isom", "iso2", "iso4", "iso5", "iso6", "mp41", "mp42", "avc1", "M4V ", "qt  ", "dash", "3gp4", "3gp5", "3gp6", "3g2a", "MSNV", "f4v ":
                return .image(.video)
            default: return .notAnImage("an ISO media file of brand '\(brand)'")
            }
        }
        // WebM and Matroska (EBML), AVI.
        if starts([0x1A, 0x45, 0xDF, 0xA3]) || (ascii("RIFF") && ascii("AVI ", at: 8)) { return .image(.video) }
        // Read only where PDF pages are turned on; refused there otherwise.
        if ascii("%PDF-") { return .image(.pdf) }
        // Formats Darkroom writes but does not read (imgproxy's own readers
        // of them are not libvips'; libvips reads them only through
        // ImageMagick, which is untrusted).
        if ascii("BM"), head.count >= 18, [12, 40, 52, 56, 108, 124].contains(Int(head[14]) | Int(head[15]) << 8) {
            return .notAnImage("a BMP image, which Darkroom writes but does not read")
        }
        if starts([0, 0, 1, 0]), head.count >= 6, head[4] | head[5] != 0 {
            return .notAnImage("an ICO icon, which Darkroom writes but does not read")
        }
        // Text formats may start with a byte-order mark or white space.
        let text = String(decoding: head, as: UTF8.self)
            .trimmingCharacters(in: CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{FEFF}")))
            .lowercased()
        if text.hasPrefix("<svg") || ((text.hasPrefix("<?xml") || text.hasPrefix("<!--") || text.hasPrefix("<!doctype svg")) && Self.hasSVGRoot(bytes)) {
            return .image(.svg)
        }
        if text.hasPrefix("<!doctype html") || text.hasPrefix("<html") || text.hasPrefix("<head") || text.hasPrefix("<body") {
            return .notAnImage("an HTML page")
        }
        if text.hasPrefix("<?xml") || text.hasPrefix("<") { return .notAnImage("an XML or markup document") }
        if text.hasPrefix("{") || text.hasPrefix("[") { return .notAnImage("a JSON document") }
        if head.allSatisfy({ $0 == 0x09 || $0 == 0x0A || $0 == 0x0D || (0x20..<0x7F).contains($0) }) {
            return .notAnImage("plain text")
        }
        // Not a word of the bytes themselves: an error answer must not
        // relay what a foreign server sent.
        return .notAnImage("data of an unknown format")
    }

    /// Whether an XML document's first element, within its first 32 KiB
    /// (imgproxy's detection window), is `<svg` (or `<prefix:svg`).
    static func hasSVGRoot<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Bool {
        let text = String(decoding: bytes.prefix(32 << 10), as: UTF8.self)
        var rest = text[...]
        while let open = rest.firstIndex(of: "<") {
            rest = rest[rest.index(after: open)...]
            guard let first = rest.first else { return false }
            // Declarations, comments and processing instructions come before it.
            if first == "?" || first == "!" { continue }
            let name = rest.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" }
            return name == "svg" || name.hasSuffix(":svg")
        }
        return false
    }
}
