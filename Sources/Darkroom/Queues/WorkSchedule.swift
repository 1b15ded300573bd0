import DequeModule

/// The order in which waiting work starts: one first-in, first-out bucket per
/// priority, highest first, with aging so that low priorities never starve.
///
/// A plain value with no clock of its own: callers pass the time in, so the
/// rules can be tested without waiting.
///
/// Removal and priority changes are lazy. An item's current priority lives in
/// `waiting`; an entry in a bucket is live only while it matches it, and stale
/// entries are dropped when they reach a bucket's head.
struct WorkSchedule<Payload> {
    struct Entry {
        let id: UInt64
        let payload: Payload
    }

    private struct Waiting {
        var priority: WorkPriority
        /// When the item was first queued; aging counts from here, and a
        /// priority change does not reset it.
        let since: ContinuousClock.Instant
    }

    private var buckets = [Deque<(entry: Entry, since: ContinuousClock.Instant)>](repeating: [], count: WorkPriority.allCases.count)
    private var waiting: [UInt64: Waiting] = [:]

    /// After this long waiting, an item counts as one level higher; after
    /// twice as long, two levels; and so on. `nil`: no aging.
    var agingInterval: Duration?

    init(agingInterval: Duration?) {
        self.agingInterval = agingInterval
    }

    var count: Int { waiting.count }
    var isEmpty: Bool { waiting.isEmpty }

    func contains(_ id: UInt64) -> Bool { waiting[id] != nil }

    func priority(of id: UInt64) -> WorkPriority? { waiting[id]?.priority }

    mutating func insert(_ id: UInt64, _ payload: Payload, priority: WorkPriority, now: ContinuousClock.Instant) {
        waiting[id] = Waiting(priority: priority, since: now)
        buckets[priority.rawValue].append((Entry(id: id, payload: payload), now))
    }

    /// Moves a waiting item to another priority, behind the items already
    /// there. Returns false when the item is not waiting.
    @discardableResult
    mutating func reprioritize(_ id: UInt64, _ payload: Payload, to priority: WorkPriority) -> Bool {
        guard var item = waiting[id] else { return false }
        guard item.priority != priority else { return true }
        item.priority = priority
        waiting[id] = item
        buckets[priority.rawValue].append((Entry(id: id, payload: payload), item.since))
        return true
    }

    /// Removes a waiting item. Returns false when it was not waiting.
    @discardableResult
    mutating func remove(_ id: UInt64) -> Bool {
        waiting.removeValue(forKey: id) != nil
    }

    /// Removes and returns every waiting item at or below `priority`.
    mutating func removeAll(atOrBelow priority: WorkPriority) -> [Entry] {
        var removed: [Entry] = []
        for level in 0...priority.rawValue {
            for (entry, _) in buckets[level] where waiting[entry.id]?.priority.rawValue == level {
                waiting[entry.id] = nil
                removed.append(entry)
            }
            buckets[level].removeAll()
        }
        return removed
    }

    /// The priority an item waiting since `since` at `priority` counts as now.
    func effectivePriority(_ priority: WorkPriority, since: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Int {
        guard let agingInterval, agingInterval > .zero else { return priority.rawValue }
        let levels = Int((now - since) / agingInterval)
        return min(priority.rawValue + max(levels, 0), WorkPriority.veryHigh.rawValue)
    }

    /// Takes the item that should start next: the highest effective priority
    /// among the buckets' heads; between equals, the higher bucket.
    mutating func popNext(now: ContinuousClock.Instant) -> Entry? {
        var best: (bucket: Int, effective: Int)?
        for level in stride(from: buckets.count - 1, through: 0, by: -1) {
            // Drop stale heads: removed, or moved to another priority.
            while let head = buckets[level].first, waiting[head.entry.id]?.priority.rawValue != level {
                buckets[level].removeFirst()
            }
            guard let head = buckets[level].first else { continue }
            let effective = effectivePriority(WorkPriority(rawValue: level)!, since: head.since, now: now)
            if best == nil || effective > best!.effective {
                best = (level, effective)
            }
        }
        guard let best else { return nil }
        let (entry, _) = buckets[best.bucket].removeFirst()
        waiting[entry.id] = nil
        return entry
    }
}
