/// The slots of one kind of the pipeline's work (downloads, processing
/// runs) and the turns that wait for them, as a plain value: at most
/// `limit` turns run at once; the others wait in a ``WorkSchedule``,
/// highest priority first, aging as they wait.
///
/// A turn is a job's caller waiting for a slot: when its turn comes it runs
/// the work in its own task, so a turn makes no task. Like ``JobTable``,
/// it does nothing itself: each mutating method returns the continuations
/// to resume once the caller has let go of its lock (`true`: the turn is
/// yours; `false`: it was cancelled while it waited). Time comes in as an
/// argument, so tests move it by hand.
struct TurnQueue<Continuation> {
    typealias TurnID = UInt64

    /// What ``ask(_:priority:continuation:now:)`` decided.
    enum Answer: Equatable {
        /// A slot was free: the turn runs now, its continuation not kept.
        case runs
        /// The turn waits; its continuation is resumed when it ends.
        case waits
    }

    let limit: Int
    private var schedule: WorkSchedule<TurnID>
    /// Whom to resume, for each turn waiting.
    private var waiting: [TurnID: Continuation] = [:]
    private var running: Set<TurnID> = []
    private(set) var counts = WorkQueueCounts()
    private(set) var isSuspended = false

    init(limit: Int, agingInterval: Duration?) {
        precondition(limit >= 1, "at least one turn runs at a time")
        self.limit = limit
        schedule = WorkSchedule(agingInterval: agingInterval)
    }

    /// Turn `id` asks for a slot at `priority`.
    mutating func ask(_ id: TurnID, priority: WorkPriority, continuation: Continuation, now: ContinuousClock.Instant) -> Answer {
        if !isSuspended, running.count < limit, schedule.isEmpty {
            running.insert(id)
            counts.running += 1
            return .runs
        }
        waiting[id] = continuation
        schedule.insert(id, priority: priority, now: now)
        counts.waiting += 1
        return .waits
    }

    /// Turn `id` gives up while it waits (its caller was cancelled, or the
    /// machine is short of memory): its continuation, to resume with
    /// `false`. Nil when it is not waiting (it runs, or it has ended).
    mutating func cancel(_ id: TurnID) -> Continuation? {
        guard let continuation = waiting.removeValue(forKey: id) else { return nil }
        schedule.remove(id)
        counts.waiting -= 1
        counts.cancelled += 1
        return continuation
    }

    /// Cancels every waiting turn at or below `priority`: their
    /// continuations, to resume with `false`.
    mutating func cancelWaiting(atOrBelow priority: WorkPriority) -> [Continuation] {
        let removed = schedule.removeAll(atOrBelow: priority).compactMap { waiting.removeValue(forKey: $0) }
        counts.waiting -= removed.count
        counts.cancelled += removed.count
        return removed
    }

    /// A running turn ended as `state`: its slot goes to the next turns
    /// waiting, whose continuations are returned, to resume with `true`.
    mutating func end(_ id: TurnID, as state: WorkState, now: ContinuousClock.Instant) -> [Continuation] {
        guard running.remove(id) != nil else { return [] }
        counts.running -= 1
        switch state {
        case .finished: counts.finished += 1
        case .failed: counts.failed += 1
        case .cancelled: counts.cancelled += 1
        case .waiting, .running: break
        }
        return startWaiting(now: now)
    }

    /// Moves waiting turn `id` to `priority`; a running turn goes on as it is.
    mutating func reprioritize(_ id: TurnID, to priority: WorkPriority) {
        schedule.reprioritize(id, to: priority)
    }

    /// Stops giving slots; running turns go on.
    mutating func suspend() {
        isSuspended = true
    }

    /// Gives slots again: the continuations of the turns that start.
    mutating func resume(now: ContinuousClock.Instant) -> [Continuation] {
        isSuspended = false
        return startWaiting(now: now)
    }

    /// Turns waiting at `priority` (before aging).
    func waiting(at priority: WorkPriority) -> Int {
        schedule.count(at: priority)
    }

    func isRunning(_ id: TurnID) -> Bool { running.contains(id) }

    private mutating func startWaiting(now: ContinuousClock.Instant) -> [Continuation] {
        var started: [Continuation] = []
        while !isSuspended, running.count < limit, let id = schedule.popNext(now: now) {
            guard let continuation = waiting.removeValue(forKey: id) else { continue }
            running.insert(id)
            counts.waiting -= 1
            counts.running += 1
            started.append(continuation)
        }
        return started
    }
}

extension TurnQueue.Answer: Sendable {}
