import Foundation

/// A 64-bit DCT perceptual hash (pHash, as Go's goimagehash computes it,
/// the common choice among image servers): the image as 64 x 64 grey, its
/// 2-D DCT, the 8 x 8 lowest frequencies, and one bit for each, set when
/// it is above their median. Images that look alike differ in few bits
/// (compare by Hamming distance); re-encoding and resizing change few.
enum PerceptualHash {
    static let side = 64

    /// The hash, as 16 lowercase hex digits, of `grey`: `side` x `side`
    /// luma samples, row by row.
    static func hash(grey: [UInt8]) -> String {
        precondition(grey.count == side * side)
        var rows = [Double](repeating: 0, count: side * side)
        let table = cosines
        // Rows, then the columns of the low frequencies only.
        for y in 0..<side {
            for u in 0..<8 {
                var sum = 0.0
                for x in 0..<side { sum += Double(grey[y * side + x]) * table[u * side + x] }
                rows[y * side + u] = sum
            }
        }
        var low = [Double](repeating: 0, count: 64)
        for v in 0..<8 {
            for u in 0..<8 {
                var sum = 0.0
                for y in 0..<side { sum += rows[y * side + u] * table[v * side + y] }
                low[v * 8 + u] = sum
            }
        }
        let median = low.sorted()[31...32].reduce(0, +) / 2
        var bits: UInt64 = 0
        for (index, value) in low.enumerated() where value > median {
            bits |= 1 << UInt64(63 - index)
        }
        return String(format: "%016llx", bits)
    }

    /// cos((2x + 1) u π / 2N) for u below 8, x below N.
    private static let cosines: [Double] = (0..<8).flatMap { u in
        (0..<side).map { x in cos(Double((2 * x + 1) * u) * Double.pi / Double(2 * side)) }
    }

    /// Luma (BT.601) of 8-bit RGBA pixels.
    static func grey(rgba: [UInt8]) -> [UInt8] {
        stride(from: 0, to: rgba.count - 3, by: 4).map { (p: Int) -> UInt8 in
            let red = 299 * Int(rgba[p]), green = 587 * Int(rgba[p + 1]), blue = 114 * Int(rgba[p + 2])
            return UInt8(min(255, (red + green + blue + 500) / 1000))
        }
    }

    /// The number of bits two hashes differ in; nil unless both are hashes.
    static func distance(_ a: String, _ b: String) -> Int? {
        guard let x = UInt64(a, radix: 16), let y = UInt64(b, radix: 16) else { return nil }
        return (x ^ y).nonzeroBitCount
    }
}
