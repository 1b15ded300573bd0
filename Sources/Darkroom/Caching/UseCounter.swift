import Synchronization
import DarkroomImaging

/// Counts how often each key has been seen, approximately and in bounded
/// memory, to decide when something is worth keeping: nginx's
/// `proxy_cache_min_uses`, for sources on disk.
///
/// A fixed table of slots, each a key's hash and its count; a key whose
/// slot another key took starts again from zero. Forgetting now and then is
/// the price of a table that never grows; it only delays keeping a source.
final class UseCounter: Sendable {
    private struct Slot {
        var hash: UInt64 = 0
        var count: UInt32 = 0
    }

    private let slots: Locked<[Slot]>
    private let mask: Int

    /// - Parameter slots: the table's size, rounded up to a power of two.
    init(slots: Int = 1 << 14) {
        var size = 1
        while size < max(1, slots) { size <<= 1 }
        self.slots = Locked([Slot](repeating: Slot(), count: size))
        mask = size - 1
    }

    /// Counts one use of `key` and returns how many there have been.
    func use(_ key: String) -> Int {
        var hasher = Hasher()
        hasher.combine(key)
        let full = UInt64(bitPattern: Int64(hasher.finalize()))
        let index = Int(truncatingIfNeeded: full >> 32) & mask
        // 0 marks an empty slot.
        let hash = full | 1
        return slots.withLock { slots in
            if slots[index].hash == hash {
                slots[index].count &+= 1
            } else {
                slots[index] = Slot(hash: hash, count: 1)
            }
            return Int(slots[index].count)
        }
    }
}
