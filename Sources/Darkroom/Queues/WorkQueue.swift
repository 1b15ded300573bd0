public import Metrics
import Synchronization
import DarkroomImaging

/// A named queue of work with a concurrency limit, priorities, aging,
/// suspension, cancellation and dependencies: the seeds' operation queues,
/// for async Swift.
///
/// ```swift
/// let downloads = WorkQueue(name: "download", maxConcurrent: 6)
/// let item = downloads.add(priority: .high) { context in try await fetch(url) }
/// let data = try await item.value
/// ```
///
/// Async work runs as tasks; blocking work (``addBlocking(priority:dependencies:_:)``)
/// runs on the queue's ``BlockingExecutor``, never on the cooperative pool.
/// At most ``maxConcurrent`` items run at once; the rest wait, highest
/// priority first, and a waiting item rises one level for every
/// ``agingInterval`` it has waited, so nothing starves.
public final class WorkQueue: Sendable {
    public let name: String
    public let maxConcurrent: Int
    public let agingInterval: Duration?
    let executor: BlockingExecutor
    private let state: Locked<State>
    private let nextID = Atomic<UInt64>(1)
    private let gauges: Gauges

    private struct State {
        var schedule: WorkSchedule<QueueEntry>
        /// Runner loops alive: each takes items until none is left.
        var runners = 0
        var suspended = false
        var counts = WorkQueueCounts()
        /// Items waiting on dependencies, not yet schedulable, kept alive here.
        var blocked = 0
        var blockedEntries: [UInt64: QueueEntry] = [:]
    }

    private struct Gauges: Sendable {
        let waiting: Gauge
        let running: Gauge
        init(name: String, factory: any MetricsFactory) {
            waiting = Gauge(label: "darkroom_queue_waiting", dimensions: [("queue", name)], factory: factory)
            running = Gauge(label: "darkroom_queue_running", dimensions: [("queue", name)], factory: factory)
        }
    }

    /// - Parameters:
    ///   - maxConcurrent: how many items may run at once.
    ///   - agingInterval: how long an item waits before it counts one level
    ///     higher; `nil` turns aging off.
    ///   - executor: where blocking work runs.
    ///   - metricsFactory: where the queue's gauges (waiting, running) go.
    public init(name: String, maxConcurrent: Int, agingInterval: Duration? = .seconds(10), executor: BlockingExecutor = .shared,
                metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        precondition(maxConcurrent >= 1, "a queue runs at least one item at a time")
        self.name = name
        self.maxConcurrent = maxConcurrent
        self.agingInterval = agingInterval
        self.executor = executor
        self.state = Locked(State(schedule: WorkSchedule(agingInterval: agingInterval)))
        self.gauges = Gauges(name: name, factory: metricsFactory)
    }

    /// Queues async work.
    @discardableResult
    public func add<Value: Sendable>(
        priority: WorkPriority = .normal,
        dependencies: [any WorkDependency] = [],
        _ work: @escaping @Sendable (WorkContext) async throws -> Value
    ) -> WorkItem<Value> {
        enqueue(WorkItem.Work.async(work), priority: priority, dependencies: dependencies)
    }

    /// Queues blocking work, to run on the queue's executor.
    @discardableResult
    public func addBlocking<Value: Sendable>(
        priority: WorkPriority = .normal,
        dependencies: [any WorkDependency] = [],
        _ work: @escaping @Sendable (WorkContext) throws -> Value
    ) -> WorkItem<Value> {
        enqueue(WorkItem.Work.blocking(work), priority: priority, dependencies: dependencies)
    }

    /// Stops starting new work; running work goes on.
    public func suspend() {
        state.withLock { $0.suspended = true }
    }

    /// Starts waiting work again.
    public func resume() {
        state.withLock { $0.suspended = false }
        pump()
    }

    public var isSuspended: Bool { state.withLock { $0.suspended } }

    /// How many items are in each state now, and how many have ended so far.
    public var counts: WorkQueueCounts { state.withLock { $0.counts } }

    /// Items waiting at `priority` (before aging): what a test polls to see
    /// a priority change land.
    func waiting(at priority: WorkPriority) -> Int {
        state.withLock { $0.schedule.count(at: priority) }
    }

    /// Cancels every waiting item at or below `priority`, such as low-priority
    /// prefetching under memory pressure. Returns how many were cancelled.
    @discardableResult
    public func cancelWaiting(atOrBelow priority: WorkPriority = .veryHigh) -> Int {
        let removed = state.withLock { $0.schedule.removeAll(atOrBelow: priority) }
        for entry in removed { entry.work.fail(.cancelled) }
        return removed.count
    }

    // MARK: - Internals

    private func enqueue<Value>(_ work: WorkItem<Value>.Work, priority: WorkPriority, dependencies: [any WorkDependency]) -> WorkItem<Value> {
        // Made before the lock is taken: the queue's lock is the one every
        // runner and every caller contends for, so it guards only the schedule.
        let item = WorkItem(id: nextID.add(1, ordering: .relaxed).oldValue, priority: priority, queue: self, work: work)
        let entry = QueueEntry(item)
        item.entry = entry
        let (toStart, counts) = state.withLock { s in
            s.counts.waiting += 1
            guard dependencies.isEmpty else {
                s.blocked += 1
                s.blockedEntries[item.id] = entry
                return (0, s.counts)
            }
            s.schedule.insert(entry, priority: priority, now: .now)
            return (Self.runnersToStart(&s, limit: maxConcurrent), s.counts)
        }
        startRunners(toStart)
        if !dependencies.isEmpty { waitForDependencies(item, dependencies) }
        record(counts)
        return item
    }

    /// Schedules `item` once every dependency has finished; fails it at once
    /// if any is cancelled or fails (Foundation's OperationQueue would run it).
    private func waitForDependencies<Value>(_ item: WorkItem<Value>, _ dependencies: [any WorkDependency]) {
        let remaining = Atomic<Int>(dependencies.count)
        let settled = Atomic<Bool>(false)
        for dependency in dependencies {
            dependency.onEnd { [self] ended in
                if ended != .finished {
                    guard !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
                    state.withLock { s in
                        s.blocked -= 1
                        s.blockedEntries[item.id] = nil
                    }
                    let reason = ended == .cancelled ? "was cancelled" : "failed"
                    item.fail(DarkroomError(.dependencyFailed, "a dependency \(reason), so this work did not run"))
                    return
                }
                guard remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0,
                      !settled.exchange(true, ordering: .acquiringAndReleasing) else { return }
                // Read before the queue's lock, which is never held with an
                // item's; an item cancelled after this is skipped when taken.
                let (waiting, priority) = (item.state == .waiting, item.priority)
                let scheduled = state.withLock { s in
                    s.blocked -= 1
                    guard let entry = s.blockedEntries.removeValue(forKey: item.id), waiting else { return false }
                    s.schedule.insert(entry, priority: priority, now: .now)
                    return true
                }
                if scheduled { pump() }
            }
        }
    }

    /// Starts runner loops while there is waiting work and room for it.
    private func pump() {
        startRunners(state.withLock { Self.runnersToStart(&$0, limit: maxConcurrent) })
    }

    /// How many runners to add, counted as started.
    private static func runnersToStart(_ s: inout State, limit: Int) -> Int {
        guard !s.suspended else { return 0 }
        let wanted = min(limit - s.runners, s.schedule.count)
        guard wanted > 0 else { return 0 }
        s.runners += wanted
        return wanted
    }

    private func startRunners(_ count: Int) {
        for _ in 0..<count {
            let runner = Runner()
            runner.attach(Task { await runLoop(runner) })
        }
    }

    private func runLoop(_ runner: Runner) async {
        while let next = takeNext(for: runner) {
            await next.run(on: executor)
            if runner.end() {
                // The item it ran was cancelled through this task: retire,
                // and let a fresh runner take over.
                state.withLock { $0.runners -= 1 }
                pump()
                return
            }
        }
    }

    /// The next item to run, marked running, or nil, in which case this
    /// runner ends.
    private func takeNext(for runner: Runner) -> (any QueuedWork)? {
        while true {
            // The runner count goes down in the same lock that finds the
            // schedule empty, so an item added meanwhile starts a runner.
            let entry = state.withLock { s -> QueueEntry? in
                if !s.suspended, let entry = s.schedule.popNext(now: .now) { return entry }
                s.runners -= 1
                return nil
            }
            guard let entry else { return nil }
            // The item's own lock, after the queue's: cancelled between its
            // removal and now, it is skipped (its cancel counts it).
            guard entry.work.markRunning(on: runner) else { continue }
            record(state.withLock { s in
                s.counts.waiting -= 1
                s.counts.running += 1
                return s.counts
            })
            return entry.work
        }
    }

    func reprioritize<Value>(_ item: WorkItem<Value>, to priority: WorkPriority) {
        guard let entry = item.entry else { return }
        _ = state.withLock { $0.schedule.reprioritize(entry, to: priority) }
    }

    func removeWaiting<Value>(_ item: WorkItem<Value>) {
        guard let entry = item.entry else { return }
        _ = state.withLock { $0.schedule.remove(entry) }
    }

    func itemEnded(_ ended: WorkState, wasRunning: Bool) {
        let counts = state.withLock { s in
            if wasRunning { s.counts.running -= 1 } else { s.counts.waiting -= 1 }
            switch ended {
            case .finished: s.counts.finished += 1
            case .failed: s.counts.failed += 1
            case .cancelled: s.counts.cancelled += 1
            case .waiting, .running: break
            }
            return s.counts
        }
        record(counts)
    }

    private func record(_ counts: WorkQueueCounts) {
        gauges.waiting.record(counts.waiting)
        gauges.running.record(counts.running)
    }
}
