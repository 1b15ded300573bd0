public import Foundation

/// What `darkroom-cache-writer` writes, so that the crash-safety test can
/// check every entry it finds: entry `i` of round `round` holds these bytes.
public enum CacheWriterData {
    /// `size` bytes, different for each `i` and each round.
    public static func expected(_ i: Int, round: Int, size: Int) -> Data {
        var generator = SplitMix(seed: UInt64(i * 1_000_003 + round))
        return Data((0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }
}

/// A small, fast, seeded generator for reproducible bytes.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
