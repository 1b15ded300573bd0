import ArgumentParser
import Darkroom
import Foundation

/// `darkroom _cache-writer`: writes disk-cache entries until it is killed.
///
/// Not for users: the crash-safety test kills it mid-write and then checks
/// that every entry in the folder is whole or absent. Entry `i` holds
/// ``expectedData(_:)`` under the key `entry-i`.
struct CacheWriterCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "_cache-writer", shouldDisplay: false)

    @Option var cacheDir: String
    @Option var entries: Int = 50
    @Option var size: Int = 200_000

    /// The bytes entry `i` must hold, `size` long, different for each `i`
    /// and each round.
    static func expectedData(_ i: Int, round: Int, size: Int) -> Data {
        var generator = SplitMix(seed: UInt64(i * 1_000_003 + round))
        return Data((0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) })
    }

    func run() throws {
        let cache = try DiskCache(configuration: .init(folder: URL(fileURLWithPath: cacheDir), sizeLimit: Int.max))
        var round = 0
        while true {
            for i in 0..<entries {
                let data = Self.expectedData(i, round: round % 2, size: size)
                try cache.store(DiskCacheEntry(data: data, metadata: ["round": "\(round % 2)"]), for: "entry-\(i)")
            }
            round += 1
        }
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
