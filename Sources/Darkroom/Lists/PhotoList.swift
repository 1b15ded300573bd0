public import Foundation

/// A list of photos: names and image URLs, with an optional detail each
///. Rows keep the file's order where its format has one (arrays),
/// and are sorted by name where it has none (dictionaries).
public struct PhotoList: Sendable, Hashable {
    public var entries: [Entry]

    /// One photo of the list, as the file gave it.
    public struct Entry: Sendable, Hashable, Identifiable {
        /// The row's position, from 0.
        public var id: Int
        public var name: String
        /// The image URL; nil when the entry's URL was not a valid http(s)
        /// URL, in which case ``problem`` says why. Such an entry is a failed
        /// row, not a failed list.
        public var url: URL?
        /// Extra text to show with the name, such as an app's download count.
        public var detail: String?
        public var problem: String?

        public init(id: Int, name: String, url: URL?, detail: String? = nil, problem: String? = nil) {
            self.id = id
            self.name = name
            self.url = url
            self.detail = detail
            self.problem = problem
        }
    }

    public init(entries: [Entry]) {
        self.entries = entries
    }

    public var count: Int { entries.count }

    /// The rows of shard `index` of `count` (1-based), split by a stable
    /// hash of each row's name and URL, so several machines can share a
    /// list and cover it exactly once.
    public func shard(_ index: Int, of count: Int) -> PhotoList {
        precondition((1...count).contains(index), "shard \(index) is outside 1...\(count)")
        return PhotoList(entries: entries.filter { Self.stableHash("\($0.name)\n\($0.url?.absoluteString ?? "")") % UInt64(count) == UInt64(index - 1) })
    }

    /// FNV-1a, 64 bits, then MurmurHash3's finalizer: the same on every
    /// machine and every run, unlike Swift's seeded `Hasher`. FNV-1a alone
    /// leaves its low bits weak (its parity is that of the bytes' parities),
    /// so an even number of shards could get every row in one.
    static func stableHash(_ text: String) -> UInt64 {
        var h = text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x0000_0100_0000_01B3 }
        h ^= h >> 33
        h &*= 0xff51_afd7_ed55_8ccd
        h ^= h >> 33
        h &*= 0xc4ce_b9fe_1a85_ec53
        h ^= h >> 33
        return h
    }
}
