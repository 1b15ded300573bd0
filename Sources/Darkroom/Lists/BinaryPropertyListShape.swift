import Foundation

/// Checks a binary property list's object graph before the decoder walks it.
///
/// A binary list is a table of objects whose arrays and dictionaries refer
/// to others by number, so its bytes can make a dictionary hold itself, or
/// a chain of arrays each holding the next one twice: a few hundred bytes
/// that the decoder would unfold into millions of values (the `list` fuzz
/// target found a 142-byte one that ran for minutes), and a string can run
/// past the file's end, which Foundation traps on. Writers never share a
/// container (Core Foundation shares only strings, numbers, dates and
/// data), so a list in which a container is reached twice, or that nests
/// deeper than ``maxDepth``, is refused here; what passes unfolds into at
/// most as many values as the file holds references, each inside the file.
struct BinaryPropertyListShape {
    static let maxDepth = 64

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let tableStart: Int

    /// Returns nil when the list may be decoded, or what is wrong with it.
    static func problem(in data: Data) -> String? {
        let bytes = [UInt8](data)
        guard bytes.count >= 8 + 32 else { return "is too short for a binary property list" }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            return "has a binary property list trailer with integer sizes \(offsetSize) and \(referenceSize) (1 to 8 allowed)"
        }
        let objects = integer(bytes, at: trailer + 8, size: 8)
        let top = integer(bytes, at: trailer + 16, size: 8)
        let table = integer(bytes, at: trailer + 24, size: 8)
        guard let objects, objects > 0, let table, table >= 8, table <= trailer,
              objects <= (trailer - table) / offsetSize
        else { return "has a binary property list whose object table does not fit in its \(bytes.count) bytes" }
        guard let top, top < objects else { return "has a binary property list whose top object is not in its table" }
        let shape = BinaryPropertyListShape(bytes: bytes, offsetSize: offsetSize, referenceSize: referenceSize,
                                            objectCount: objects, tableStart: table)
        // Every object, reached or not, lies inside the file: the decoder
        // may read any of them.
        for object in 0..<objects where shape.extent(of: object) == nil {
            return "has a binary property list object \(object) that is not a known kind or runs past its objects"
        }
        var reached = Set<Int>()
        return shape.walk(top, depth: 0, reached: &reached)
    }

    /// Where an object lies: its marker's kind, its element count and where
    /// its contents start and end; nil when it is not a kind of object a
    /// binary list holds, or does not end before the offset table (Foundation
    /// traps on a string that runs past the end of the file).
    private func extent(of object: Int) -> (kind: UInt8, count: Int, start: Int, end: Int)? {
        guard let offset = Self.integer(bytes, at: tableStart + object * offsetSize, size: offsetSize),
              offset >= 8, offset < tableStart
        else { return nil }
        let marker = bytes[offset]
        let kind = marker >> 4, low = Int(marker & 0x0F)
        let fixed: Int? = switch kind {
        case 0x0: [0x0, 0x8, 0x9, 0xF].contains(low) ? 0 : nil
        case 0x1: low <= 4 ? 1 << low : nil
        case 0x2: low == 2 || low == 3 ? 1 << low : nil
        case 0x3: low == 3 ? 8 : nil
        case 0x8: low + 1
        case 0x4, 0x5, 0x6, 0x7, 0xA, 0xB, 0xC, 0xD: -1
        default: nil
        }
        guard let fixed else { return nil }
        if fixed >= 0 {
            return offset + 1 + fixed <= tableStart ? (kind, 0, offset + 1, offset + 1 + fixed) : nil
        }
        guard let (count, start) = count(marker: marker, at: offset), count <= tableStart else { return nil }
        let unit = switch kind {
        case 0x6: 2
        case 0xA, 0xB, 0xC: referenceSize
        case 0xD: 2 * referenceSize
        default: 1
        }
        let end = start + count * unit
        return end <= tableStart ? (kind, count, start, end) : nil
    }

    /// Visits `object` and what it holds; containers may be reached once.
    private func walk(_ object: Int, depth: Int, reached: inout Set<Int>) -> String? {
        guard let (kind, count, start, _) = extent(of: object) else {
            return "has a binary property list object \(object) that is not a known kind or runs past its objects"
        }
        // Arrays (0xA), ordered sets (0xB), sets (0xC) and dictionaries
        // (0xD) hold references; the rest are leaves.
        guard kind >= 0xA else { return nil }
        guard depth < Self.maxDepth else { return "has a binary property list nested deeper than \(Self.maxDepth) levels" }
        guard reached.insert(object).inserted else {
            return "has a binary property list whose container \(object) is reached twice (it refers to itself or is shared)"
        }
        for index in 0..<(kind == 0xD ? count * 2 : count) {
            guard let child = Self.integer(bytes, at: start + index * referenceSize, size: referenceSize), child < objectCount else {
                return "has a binary property list object \(object) that refers to an object not in its table"
            }
            if let problem = walk(child, depth: depth + 1, reached: &reached) { return problem }
        }
        return nil
    }

    /// A container's element count (the marker's low nibble, or an integer
    /// object after it when that nibble is 0xF) and where its contents start.
    private func count(marker: UInt8, at offset: Int) -> (Int, Int)? {
        let low = Int(marker & 0x0F)
        guard low == 0x0F else { return (low, offset + 1) }
        guard offset + 1 < tableStart, bytes[offset + 1] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard size <= 8, offset + 2 + size <= tableStart, let count = Self.integer(bytes, at: offset + 2, size: size) else { return nil }
        return (count, offset + 2 + size)
    }

    /// A big-endian unsigned integer of `size` bytes, nil when it is outside
    /// the bytes or larger than `Int.max`.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
