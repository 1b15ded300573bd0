public import Foundation

/// An answer's width and height, read from its header (JPEG, PNG, GIF,
/// WebP, and a one-image AVIF or HEIF as Darkroom writes it) without
/// decoding it: tests measure the product's answers without
/// the product's own code, and without holding a thread for a decode.
public enum ImageSize {
    public struct Unreadable: Error, CustomStringConvertible {
        public let description: String
    }

    public static func of(_ data: Data) throws -> (width: Int, height: Int) {
        let b = [UInt8](data.prefix(64))
        func be(_ i: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 << 8 | Int(b[i + $1]) } }
        func le(_ i: Int, _ n: Int) -> Int { (0..<n).reversed().reduce(0) { $0 << 8 | Int(b[i + $1]) } }
        if b.starts(with: [0xFF, 0xD8]) {
            let markers = JPEGMarkers(data)
            if let width = markers.width, let height = markers.height { return (width, height) }
        } else if b.count >= 24, b.starts(with: [0x89, 0x50, 0x4E, 0x47]) {
            return (be(16, 4), be(20, 4))
        } else if b.count >= 10, b.starts(with: Array("GIF8".utf8)) {
            return (le(6, 2), le(8, 2))
        } else if b.count >= 30, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) {
            switch String(decoding: b[12..<16], as: UTF8.self) {
            case "VP8 ": return (le(26, 2) & 0x3FFF, le(28, 2) & 0x3FFF)
            case "VP8L":
                let bits = le(21, 4)
                return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
            case "VP8X": return (le(24, 3) + 1, le(27, 3) + 1)
            default: break
            }
        } else if b.count >= 12, Array(b[4..<8]) == Array("ftyp".utf8) {
            // One image: its one spatial extent property (after its version and flags).
            let bytes = [UInt8](data)
            let marker = Array("ispe".utf8)
            if let at = (0..<max(0, bytes.count - 16)).first(where: { Array(bytes[$0..<$0 + 4]) == marker }) {
                func u32(_ i: Int) -> Int { (0..<4).reduce(0) { $0 << 8 | Int(bytes[i + $1]) } }
                return (u32(at + 8), u32(at + 12))
            }
        }
        throw Unreadable(description: "not a JPEG, PNG, GIF, WebP or HEIF header I can read (\(data.count) bytes)")
    }
}
