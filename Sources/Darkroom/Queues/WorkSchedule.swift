import DequeModule

/// An item's place in a ``WorkSchedule``.
struct ScheduleSlot: Sendable {
    var priority: WorkPriority
    /// When the item was first queued; aging counts from here, and a
    /// priority change does not reset it.
    let since: ContinuousClock.Instant
}

/// The order in which waiting work starts: one first-in, first-out bucket per
/// priority, highest first, with aging so that low priorities never starve.
///
/// A plain value keyed by the items' ids, with no clock of its own: callers
/// pass the time in, so the rules can be tested without waiting. The
/// pipeline's turns (``TurnQueue``) and the public ``WorkQueue`` wait in it.
///
/// Removal and priority changes are lazy: an entry in a bucket is live only
/// while its id's slot names that bucket, and stale entries are dropped
/// when they reach a bucket's head.
struct WorkSchedule<ID: Hashable> {
    typealias Slot = ScheduleSlot

    private var buckets = [Deque<ID>](repeating: [], count: WorkPriority.allCases.count)
    /// Where each waiting item waits.
    private var slots: [ID: Slot] = [:]

    /// After this long waiting, an item counts as one level higher; after
    /// twice as long, two levels; and so on. `nil`: no aging.
    var agingInterval: Duration?

    init(agingInterval: Duration?) {
        self.agingInterval = agingInterval
    }

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    /// Queues an item that is not waiting.
    mutating func insert(_ id: ID, priority: WorkPriority, now: ContinuousClock.Instant) {
        slots[id] = Slot(priority: priority, since: now)
        buckets[priority.rawValue].append(id)
    }

    /// Waiting items at `priority` (before aging).
    func count(at priority: WorkPriority) -> Int {
        slots.values.lazy.filter { $0.priority == priority }.count
    }

    /// Moves a waiting item to another priority, behind the items already
    /// there; moved back to a priority it had, it may find its old place
    /// instead (the entry it left is live again, unless a pop has dropped
    /// it meanwhile). Returns false when the item is not waiting.
    @discardableResult
    mutating func reprioritize(_ id: ID, to priority: WorkPriority) -> Bool {
        guard let slot = slots[id] else { return false }
        guard slot.priority != priority else { return true }
        slots[id] = Slot(priority: priority, since: slot.since)
        buckets[priority.rawValue].append(id)
        return true
    }

    /// Removes a waiting item. Returns false when it was not waiting.
    @discardableResult
    mutating func remove(_ id: ID) -> Bool {
        slots.removeValue(forKey: id) != nil
    }

    /// Removes and returns every waiting item at or below `priority`.
    mutating func removeAll(atOrBelow priority: WorkPriority) -> [ID] {
        var removed: [ID] = []
        for level in 0...priority.rawValue {
            for id in buckets[level] where slots[id]?.priority.rawValue == level {
                slots[id] = nil
                removed.append(id)
            }
            buckets[level].removeAll()
        }
        return removed
    }

    /// The priority an item queued at `priority` since `since` counts as now.
    func effectivePriority(_ priority: WorkPriority, since: ContinuousClock.Instant, now: ContinuousClock.Instant) -> Int {
        guard let agingInterval, agingInterval > .zero else { return priority.rawValue }
        let levels = Int((now - since) / agingInterval)
        return min(priority.rawValue + max(levels, 0), WorkPriority.veryHigh.rawValue)
    }

    /// Takes the item that should start next: the highest effective priority
    /// among the buckets' heads; between equals, the one that has waited
    /// longest, as first-in, first-out within a priority.
    mutating func popNext(now: ContinuousClock.Instant) -> ID? {
        guard !slots.isEmpty else { return nil }
        var best: (bucket: Int, effective: Int, since: ContinuousClock.Instant)?
        for level in stride(from: buckets.count - 1, through: 0, by: -1) {
            // Drop stale heads: removed, or moved to another priority.
            var live: ScheduleSlot?
            while let head = buckets[level].first {
                if let slot = slots[head], slot.priority.rawValue == level {
                    live = slot
                    break
                }
                buckets[level].removeFirst()
            }
            guard let slot = live else { continue }
            let effective = effectivePriority(slot.priority, since: slot.since, now: now)
            if let current = best, effective < current.effective || (effective == current.effective && slot.since >= current.since) {
                continue
            }
            best = (level, effective, slot.since)
        }
        guard let best else { return nil }
        let id = buckets[best.bucket].removeFirst()
        slots[id] = nil
        return id
    }
}
