import Foundation

/// A 64-bit checksum of a disk entry's bytes, to catch damage and cut-short
/// files: not a cryptographic hash (nothing an attacker writes reaches the
/// cache folder), but fast enough to run on every read and write, where
/// SHA-256 cost milliseconds per photo.
///
/// Four independent lanes of multiply-rotate over 8-byte words, folded at
/// the end with the length, so every bit of the input reaches the result.
enum Checksum {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9

    static func of<D: ContiguousBytes>(_ data: D) -> UInt64 {
        data.withUnsafeBytes { of($0) }
    }

    static func of(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var lanes: (UInt64, UInt64, UInt64, UInt64) = (prime1 &+ prime2, prime2, 0, 0 &- prime1)
        let count = bytes.count
        var offset = 0
        @inline(__always) func round(_ lane: UInt64, _ word: UInt64) -> UInt64 {
            var h = lane &+ word &* prime2
            h = (h << 31) | (h >> 33)
            return h &* prime1
        }
        while offset + 32 <= count {
            lanes.0 = round(lanes.0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            lanes.1 = round(lanes.1, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
            lanes.2 = round(lanes.2, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self))
            lanes.3 = round(lanes.3, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self))
            offset += 32
        }
        var h = ((lanes.0 << 1) | (lanes.0 >> 63)) &+ ((lanes.1 << 7) | (lanes.1 >> 57))
            &+ ((lanes.2 << 12) | (lanes.2 >> 52)) &+ ((lanes.3 << 18) | (lanes.3 >> 46))
        h = (h ^ round(0, lanes.0)) &* prime1 &+ prime3
        h = (h ^ round(0, lanes.1)) &* prime1 &+ prime3
        h = (h ^ round(0, lanes.2)) &* prime1 &+ prime3
        h = (h ^ round(0, lanes.3)) &* prime1 &+ prime3
        h &+= UInt64(count)
        while offset < count {
            h ^= UInt64(bytes[offset]) &* prime3
            h = ((h << 11) | (h >> 53)) &* prime1
            offset += 1
        }
        // Final avalanche.
        h ^= h >> 33
        h &*= prime2
        h ^= h >> 29
        h &*= prime3
        h ^= h >> 32
        return h
    }
}
