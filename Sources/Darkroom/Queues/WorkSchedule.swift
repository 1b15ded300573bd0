import DequeModule

/// Something a ``WorkSchedule`` can hold: it carries its own place in the
/// schedule, so checking whether an entry is still live costs a field read,
/// not a dictionary lookup.
protocol Schedulable: AnyObject {
    /// Where the item waits: its priority and since when; nil when it is not
    /// waiting. Only the schedule sets it, under its owner's lock.
    var slot: ScheduleSlot? { get set }
}

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
/// A plain value with no clock of its own: callers pass the time in, so the
/// rules can be tested without waiting.
///
/// Removal and priority changes are lazy: an entry in a bucket is live only
/// while its item's slot names that bucket, and stale entries are dropped
/// when they reach a bucket's head.
struct WorkSchedule<Item: Schedulable> {
    typealias Slot = ScheduleSlot

    private var buckets = [Deque<Item>](repeating: [], count: WorkPriority.allCases.count)
    private(set) var count = 0

    /// After this long waiting, an item counts as one level higher; after
    /// twice as long, two levels; and so on. `nil`: no aging.
    var agingInterval: Duration?

    init(agingInterval: Duration?) {
        self.agingInterval = agingInterval
    }

    var isEmpty: Bool { count == 0 }

    /// Queues an item that is not waiting.
    mutating func insert(_ item: Item, priority: WorkPriority, now: ContinuousClock.Instant) {
        count += 1
        item.slot = Slot(priority: priority, since: now)
        buckets[priority.rawValue].append(item)
    }

    /// Waiting items at `priority` (before aging). An item moved away and
    /// back has two entries in the bucket, both live: it counts once.
    func count(at priority: WorkPriority) -> Int {
        Set(buckets[priority.rawValue].lazy.filter { $0.slot?.priority == priority }.map(ObjectIdentifier.init)).count
    }

    /// Moves a waiting item to another priority, behind the items already
    /// there; moved back to a priority it had, it may find its old place
    /// instead (the entry it left is live again, unless a pop has dropped
    /// it meanwhile). Returns false when the item is not waiting.
    @discardableResult
    mutating func reprioritize(_ item: Item, to priority: WorkPriority) -> Bool {
        guard let slot = item.slot else { return false }
        guard slot.priority != priority else { return true }
        item.slot = Slot(priority: priority, since: slot.since)
        buckets[priority.rawValue].append(item)
        return true
    }

    /// Removes a waiting item. Returns false when it was not waiting.
    @discardableResult
    mutating func remove(_ item: Item) -> Bool {
        guard item.slot != nil else { return false }
        item.slot = nil
        count -= 1
        return true
    }

    /// Removes and returns every waiting item at or below `priority`.
    mutating func removeAll(atOrBelow priority: WorkPriority) -> [Item] {
        var removed: [Item] = []
        for level in 0...priority.rawValue {
            for item in buckets[level] where item.slot?.priority.rawValue == level {
                item.slot = nil
                count -= 1
                removed.append(item)
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
    mutating func popNext(now: ContinuousClock.Instant) -> Item? {
        var best: (bucket: Int, effective: Int, since: ContinuousClock.Instant)?
        for level in stride(from: buckets.count - 1, through: 0, by: -1) {
            // Drop stale heads: removed, or moved to another priority.
            var live: ScheduleSlot?
            while let head = buckets[level].first {
                if let slot = head.slot, slot.priority.rawValue == level {
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
        let item = buckets[best.bucket].removeFirst()
        item.slot = nil
        count -= 1
        return item
    }
}
