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
    private let clock: @Sendable () -> ContinuousClock.Instant
    private let state: Locked<State>
    private let nextID = Atomic<UInt64>(1)
    private let gauges: QueueGauges

    private struct State {
        var schedule: WorkSchedule<UInt64>
        /// The work of each item waiting in the schedule, by id.
        var waiting: [UInt64: any QueuedWork] = [:]
        /// Slots in use: runner loops, each taking items until none is left.
        var busy = 0
        var suspended = false
        var counts = WorkQueueCounts()
        /// Items waiting on dependencies, not yet schedulable, kept alive here.
        var blocked: [UInt64: (work: any QueuedWork, wait: DependencyWait)] = [:]
    }

    /// - Parameters:
    ///   - maxConcurrent: how many items may run at once.
    ///   - agingInterval: how long an item waits before it counts one level
    ///     higher; `nil` turns aging off.
    ///   - executor: where blocking work runs.
    ///   - metricsFactory: where the queue's gauges (waiting, running) go.
    public convenience init(name: String, maxConcurrent: Int, agingInterval: Duration? = .seconds(10), executor: BlockingExecutor = .shared,
                metricsFactory: any MetricsFactory = MetricsSystem.factory) {
        self.init(name: name, maxConcurrent: maxConcurrent, agingInterval: agingInterval, executor: executor, metricsFactory: metricsFactory,
                  clock: { .now })
    }

    /// - Parameter clock: the time aging is measured by; tests move it by hand.
    init(name: String, maxConcurrent: Int, agingInterval: Duration?, executor: BlockingExecutor = .shared,
         metricsFactory: any MetricsFactory = MetricsSystem.factory, clock: @escaping @Sendable () -> ContinuousClock.Instant) {
        precondition(maxConcurrent >= 1, "a queue runs at least one item at a time")
        self.clock = clock
        self.name = name
        self.maxConcurrent = maxConcurrent
        self.agingInterval = agingInterval
        self.executor = executor
        self.state = Locked(State(schedule: WorkSchedule(agingInterval: agingInterval)))
        self.gauges = QueueGauges(name: name, factory: metricsFactory)
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
        let removed = state.withLock { s in s.schedule.removeAll(atOrBelow: priority).compactMap { s.waiting.removeValue(forKey: $0) } }
        for work in removed { work.fail(.cancelled) }
        return removed.count
    }

    // MARK: - Internals

    private func enqueue<Value>(_ work: WorkItem<Value>.Work, priority: WorkPriority, dependencies: [any WorkDependency]) -> WorkItem<Value> {
        // Made before the lock is taken: the queue's lock is the one every
        // runner and every caller contends for, so it guards only the schedule.
        let item = WorkItem(id: nextID.add(1, ordering: .relaxed).oldValue, priority: priority, queue: self, work: work)
        let counts = state.withLock { s in
            s.counts.waiting += 1
            if dependencies.isEmpty {
                s.waiting[item.id] = item
                s.schedule.insert(item.id, priority: priority, now: clock())
            } else {
                s.blocked[item.id] = (item, DependencyWait(count: dependencies.count))
            }
            return s.counts
        }
        record(counts)
        if dependencies.isEmpty { pump() } else { waitForDependencies(item, dependencies) }
        return item
    }

    /// Schedules `item` once every dependency has finished; fails it at once
    /// if any is cancelled or fails (``DependencyWait`` holds the rule).
    private func waitForDependencies<Value>(_ item: WorkItem<Value>, _ dependencies: [any WorkDependency]) {
        for dependency in dependencies {
            dependency.onEnd { [self] ended in
                // Settled under the queue's lock: the entry leaves the
                // blocked ones once, whoever ends last or first fails.
                let (outcome, work) = state.withLock { s -> (DependencyWait.Outcome, (any QueuedWork)?) in
                    guard let outcome = s.blocked[item.id]?.wait.ended(ended) else { return (.waits, nil) }
                    return (outcome, outcome == .waits ? nil : s.blocked.removeValue(forKey: item.id)?.work)
                }
                switch outcome {
                case .waits:
                    break
                case .ready:
                    // The item's state is read after the queue's lock, which
                    // is never held with an item's; an item cancelled after
                    // this is skipped when taken.
                    guard let work, item.state == .waiting else { return }
                    let priority = item.priority
                    state.withLock { s in
                        s.waiting[item.id] = work
                        s.schedule.insert(item.id, priority: priority, now: clock())
                    }
                    pump()
                case .failed(let state):
                    let reason = state == .cancelled ? "was cancelled" : "failed"
                    item.fail(DarkroomError(.dependencyFailed, "a dependency \(reason), so this work did not run"))
                }
            }
        }
    }

    /// Starts waiting work while there are free slots: each entry taken
    /// holds a slot, and a cancelled one gives it back.
    private func pump() {
        while true {
            let taken = state.withLock { s -> [any QueuedWork] in
                guard !s.suspended else { return [] }
                var taken: [any QueuedWork] = []
                while s.busy < maxConcurrent, let id = s.schedule.popNext(now: clock()) {
                    guard let work = s.waiting.removeValue(forKey: id) else { continue }
                    s.busy += 1
                    taken.append(work)
                }
                return taken
            }
            guard !taken.isEmpty else { return }
            let freed = taken.filter { !start($0) }.count
            guard freed > 0 else { return }
            state.withLock { $0.busy -= freed }
        }
    }

    /// Starts work taken from the schedule on a slot already counted, on
    /// a runner of its own. False when the item was cancelled meanwhile.
    private func start(_ work: any QueuedWork) -> Bool {
        let runner = Runner()
        guard work.markRunning(on: runner) else { return false }
        countRunning()
        runner.attach(Task { await runLoop(runner, first: work) })
        return true
    }

    private func countRunning() {
        record(state.withLock { s in
            s.counts.waiting -= 1
            s.counts.running += 1
            return s.counts
        })
    }

    private func runLoop(_ runner: Runner, first: any QueuedWork) async {
        var next: (any QueuedWork)? = first
        while let work = next {
            await work.run(on: executor)
            if runner.end() {
                // The item it ran was cancelled through this task: retire,
                // and let a fresh runner take over.
                state.withLock { $0.busy -= 1 }
                pump()
                return
            }
            next = takeNext(for: runner)
        }
    }

    /// The next item for this runner, marked running; nil when the runner
    /// ends, its slot given back.
    private func takeNext(for runner: Runner) -> (any QueuedWork)? {
        while true {
            // The slot is given back in the same lock that finds the
            // schedule empty, so an item added meanwhile finds it free.
            let taken = state.withLock { s -> (any QueuedWork)? in
                while !s.suspended, let id = s.schedule.popNext(now: clock()) {
                    if let work = s.waiting.removeValue(forKey: id) { return work }
                }
                s.busy -= 1
                return nil
            }
            guard let work = taken else { return nil }
            // The item's own lock, after the queue's: cancelled between its
            // removal and now, it is skipped (its cancel counts it).
            guard work.markRunning(on: runner) else { continue }
            countRunning()
            return work
        }
    }

    func reprioritize<Value>(_ item: WorkItem<Value>, to priority: WorkPriority) {
        _ = state.withLock { $0.schedule.reprioritize(item.id, to: priority) }
    }

    func removeWaiting<Value>(_ item: WorkItem<Value>) {
        state.withLock { s in
            s.schedule.remove(item.id)
            s.waiting[item.id] = nil
        }
    }

    /// Counts an item's end.
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
        gauges.record(counts)
    }
}
