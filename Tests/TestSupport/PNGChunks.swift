public import Foundation

/// A PNG's chunks, to be rearranged: the way to make files whose chunks
/// come in orders libpng reads otherwise, with CRCs that still match.
public struct PNGChunks: Sendable {
    public var chunks: [(type: String, body: [UInt8])]

    public init(_ png: Data) {
        var chunks: [(String, [UInt8])] = []
        let bytes = [UInt8](png)
        var at = 8
        while at + 12 <= bytes.count {
            let length = bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[at + 4..<at + 8], as: UTF8.self)
            guard at + 12 + length <= bytes.count else { break }
            chunks.append((type, Array(bytes[at + 8..<at + 8 + length])))
            at += 12 + length
        }
        self.chunks = chunks
    }

    public var data: Data {
        var out = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        for (type, body) in chunks {
            let typed = Array(type.utf8) + body
            out.append(contentsOf: Self.bigEndian(UInt32(body.count)) + typed + Self.bigEndian(Self.crc32(typed)))
        }
        return out
    }

    /// The pixels' chunks joined, then cut in two, with `between` (if
    /// any) between the halves.
    public func splittingIDAT(with between: (type: String, body: [UInt8])?) -> PNGChunks {
        let pixels = chunks.filter { $0.type == "IDAT" }.flatMap(\.body)
        let first = chunks.firstIndex { $0.type == "IDAT" } ?? chunks.count - 1
        var copy = self
        copy.chunks.removeAll { $0.type == "IDAT" }
        var inserted: [(type: String, body: [UInt8])] = [("IDAT", Array(pixels.prefix(pixels.count / 2)))]
        if let between { inserted.append(between) }
        inserted.append(("IDAT", Array(pixels.dropFirst(pixels.count / 2))))
        copy.chunks.insert(contentsOf: inserted, at: first)
        return copy
    }

    /// `chunk` before the first IDAT, or after the last.
    public func inserting(_ chunk: (type: String, body: [UInt8]), beforeIDAT: Bool) -> PNGChunks {
        var copy = self
        let at = beforeIDAT ? chunks.firstIndex { $0.type == "IDAT" } : chunks.lastIndex { $0.type == "IDAT" }.map { $0 + 1 }
        copy.chunks.insert(chunk, at: at ?? chunks.count - 1)
        return copy
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(value >> (24 - 8 * UInt32($0)) & 0xFF) }
    }

    static let table: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        ~bytes.reduce(UInt32.max) { table[Int(($0 ^ UInt32($1)) & 0xFF)] ^ ($0 >> 8) }
    }
}
