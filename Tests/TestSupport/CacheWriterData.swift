public import Foundation

/// The bytes `darkroom-cache-writer` stores, which the crash-safety test
/// checks entries against.
public enum CacheWriterData {
    /// `size` bytes, different for each `i` and each round. Made eight bytes
    /// at a time: the test makes 120 of them, 300 KB each, in a debug build.
    public static func expected(_ i: Int, round: Int, size: Int) -> Data {
        var generator = SplitMix(seed: UInt64(i * 1_000_003 + round))
        let words = (0..<(size + 7) / 8).map { _ in generator.next().littleEndian }
        return words.withUnsafeBytes { Data($0.prefix(size)) }
    }
}

/// A small, fast, seeded generator for reproducible bytes, and for random
/// tests that replay.
public struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
