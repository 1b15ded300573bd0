import Synchronization
import DarkroomImaging

/// An in-memory cache bounded by total cost (bytes) and by count, evicting
/// the least recently used entry first, with an optional time to live.
///
/// Every call takes one lock for a few dictionary and list operations, so a
/// hit costs microseconds and never waits behind image work.
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// The most the cached values may cost together, usually in bytes.
        public var costLimit: Int
        public var countLimit: Int
        /// How long an entry stays fresh; `nil`: until it is evicted.
        public var timeToLive: Duration?

        public init(costLimit: Int = 256 << 20, countLimit: Int = 10_000, timeToLive: Duration? = nil) {
            self.costLimit = costLimit
            self.countLimit = countLimit
            self.timeToLive = timeToLive
        }
    }

    public let configuration: Configuration
    private let state: Locked<LRUList<Key, Value>>
    /// What time it is, for the time to live (a test's own clock in tests).
    private let now: @Sendable () -> ContinuousClock.Instant

    public convenience init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, now: { ContinuousClock.now })
    }

    init(configuration: Configuration, now: @escaping @Sendable () -> ContinuousClock.Instant) {
        self.configuration = configuration
        self.state = Locked(LRUList())
        self.now = now
    }

    /// The value for `key`, marking it most recently used; nil on a miss or
    /// when the entry has expired.
    public func value(for key: Key) -> Value? {
        let now = configuration.timeToLive == nil ? nil : self.now()
        return state.withLock { list in
            guard let node = list.node(for: key) else {
                list.statistics.misses += 1
                return nil
            }
            if let expiry = node.expiry, let now, expiry <= now {
                list.remove(node)
                list.statistics.misses += 1
                return nil
            }
            list.moveToFront(node)
            list.statistics.hits += 1
            return node.value
        }
    }

    /// Stores `value`, then evicts the least recently used entries until the
    /// cache is within its limits. A value costlier than the whole limit is
    /// not stored.
    public func store(_ value: Value, for key: Key, cost: Int) {
        guard cost <= configuration.costLimit else { return }
        let expiry = configuration.timeToLive.map { now() + $0 }
        state.withLock { list in
            if let old = list.node(for: key) { list.remove(old) }
            list.insertAtFront(key: key, value: value, cost: cost, expiry: expiry)
            while list.statistics.totalCost > configuration.costLimit || list.statistics.count > configuration.countLimit,
                  let oldest = list.tail {
                list.remove(oldest)
                list.statistics.evictions += 1
            }
        }
    }

    public func removeValue(for key: Key) {
        state.withLock { list in
            if let node = list.node(for: key) { list.remove(node) }
        }
    }

    /// Empties the cache (on memory pressure, or on demand). Counters stay.
    public func removeAll() {
        state.withLock { $0.removeAll() }
    }

    public var statistics: CacheStatistics { state.withLock { $0.statistics } }
}

/// A dictionary of nodes threaded on a doubly linked list, most recent first.
/// Only touched under the cache's lock.
struct LRUList<Key: Hashable, Value>: ~Copyable {
    final class Node {
        let key: Key
        let value: Value
        let cost: Int
        let expiry: ContinuousClock.Instant?
        var previous: Node?
        var next: Node?
        init(key: Key, value: Value, cost: Int, expiry: ContinuousClock.Instant?) {
            self.key = key
            self.value = value
            self.cost = cost
            self.expiry = expiry
        }
    }

    private var nodes: [Key: Node] = [:]
    private var head: Node?
    private(set) var tail: Node?
    var statistics = CacheStatistics()

    func node(for key: Key) -> Node? { nodes[key] }

    mutating func insertAtFront(key: Key, value: Value, cost: Int, expiry: ContinuousClock.Instant?) {
        let node = Node(key: key, value: value, cost: cost, expiry: expiry)
        nodes[key] = node
        link(node)
        statistics.count += 1
        statistics.totalCost += cost
    }

    mutating func moveToFront(_ node: Node) {
        guard head !== node else { return }
        unlink(node)
        link(node)
    }

    mutating func remove(_ node: Node) {
        unlink(node)
        nodes[node.key] = nil
        statistics.count -= 1
        statistics.totalCost -= node.cost
    }

    mutating func removeAll() {
        // Break the links so the nodes free at once.
        var node = head
        while let current = node {
            node = current.next
            current.previous = nil
            current.next = nil
        }
        nodes.removeAll()
        head = nil
        tail = nil
        statistics.count = 0
        statistics.totalCost = 0
    }

    private mutating func link(_ node: Node) {
        node.previous = nil
        node.next = head
        head?.previous = node
        head = node
        if tail == nil { tail = node }
    }

    private mutating func unlink(_ node: Node) {
        node.previous?.next = node.next
        node.next?.previous = node.previous
        if head === node { head = node.next }
        if tail === node { tail = node.previous }
        node.previous = nil
        node.next = nil
    }
}
