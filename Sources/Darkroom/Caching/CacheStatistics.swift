/// What a cache holds and how it has been used since it was opened.
public struct CacheStatistics: Sendable, Hashable, Codable {
    public var hits = 0
    public var misses = 0
    /// Entries held now.
    public var count = 0
    /// Their total cost (bytes) now.
    public var totalCost = 0
    public var evictions = 0

    public init() {}
}
