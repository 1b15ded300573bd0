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
///
/// A thin face over the scheduler the pipeline's downloads and runs wait
/// in (``TurnQueue``): an item asks for a turn as it is added (or once its
/// dependencies have finished) and runs when the turn comes, in the task
/// of a runner that takes the turns passed to it; a running item is
/// cancelled through that task alone.
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
        /// The items running and those waiting for a slot; a turn's
        /// continuation is the item to start.
        var turns: TurnQueue<any QueuedWork>
        /// Items waiting on dependencies, not yet asking for a slot.
        var blocked: [UInt64: (work: any QueuedWork, wait: DependencyWait)] = [:]
        /// Items that ended while they waited on dependencies.
        var endedBlocked = WorkQueueCounts()

        var counts: WorkQueueCounts {
            var counts = turns.counts
            counts.waiting += blocked.count
            counts.failed += endedBlocked.failed
            counts.cancelled += endedBlocked.cancelled
            return counts
        }
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
        self.state = Locked(State(turns: TurnQueue(limit: maxConcurrent, agingInterval: agingInterval)))
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
        withState { $0.turns.suspend() }
    }

    /// Starts waiting work again.
    public func resume() {
        start(withState { $0.turns.resume(now: clock()) })
    }

    public var isSuspended: Bool { state.withLock { $0.turns.isSuspended } }

    /// How many items are in each state now, and how many have ended so far.
    public var counts: WorkQueueCounts { state.withLock { $0.counts } }

    /// Items waiting at `priority` (before aging): what a test polls to see
    /// a priority change land.
    func waiting(at priority: WorkPriority) -> Int {
        state.withLock { $0.turns.waiting(at: priority) }
    }

    /// Cancels every waiting item at or below `priority`, such as low-priority
    /// prefetching under memory pressure. Returns how many were cancelled.
    @discardableResult
    public func cancelWaiting(atOrBelow priority: WorkPriority = .veryHigh) -> Int {
        let removed = withState { $0.turns.cancelWaiting(atOrBelow: priority) }
        for work in removed { work.fail(.cancelled) }
        return removed.count
    }

    // MARK: - Internals

    /// `change` under the queue's lock; the gauges are set from the counts
    /// read in the same hold.
    private func withState<Result: Sendable>(_ change: (inout State) -> Result) -> Result {
        let (result, counts) = state.withLock { s in
            let result = change(&s)
            return (result, s.counts)
        }
        gauges.record(counts)
        return result
    }

    private func enqueue<Value>(_ work: WorkItem<Value>.Work, priority: WorkPriority, dependencies: [any WorkDependency]) -> WorkItem<Value> {
        // Made before the lock is taken: the queue's lock is the one every
        // item and every caller contends for, so it guards only the turns.
        let item = WorkItem(id: nextID.add(1, ordering: .relaxed).oldValue, priority: priority, queue: self, work: work)
        if dependencies.isEmpty {
            let answer = withState { $0.turns.ask(item.id, priority: priority, continuation: item, now: clock()) }
            if answer == .runs { start([item]) }
        } else {
            withState { $0.blocked[item.id] = (item, DependencyWait(count: dependencies.count)) }
            waitForDependencies(item, dependencies)
        }
        return item
    }

    /// Asks a turn for `item` once every dependency has finished; fails it
    /// at once if any is cancelled or fails (``DependencyWait`` holds the rule).
    private func waitForDependencies<Value>(_ item: WorkItem<Value>, _ dependencies: [any WorkDependency]) {
        for dependency in dependencies {
            dependency.onEnd { [self] ended in
                // Settled under the queue's lock, with the turn asked in the
                // same hold: the entry leaves the blocked ones once, and a
                // cancel finds it either blocked or waiting for its turn.
                // (The item's lock, for its priority, is taken inside the
                // queue's; an item never calls its queue holding its own.)
                let outcome = withState { s -> (DependencyWait.Outcome, TurnQueue<any QueuedWork>.Answer?) in
                    guard let outcome = s.blocked[item.id]?.wait.ended(ended) else { return (.waits, nil) }
                    switch outcome {
                    case .waits:
                        return (outcome, nil)
                    case .ready:
                        s.blocked[item.id] = nil
                        return (outcome, s.turns.ask(item.id, priority: item.priority, continuation: item, now: clock()))
                    case .failed:
                        s.blocked[item.id] = nil
                        s.endedBlocked.failed += 1
                        return (outcome, nil)
                    }
                }
                switch outcome {
                case (.ready, .runs?):
                    start([item])
                case (.failed(let state), _):
                    let reason = state == .cancelled ? "was cancelled" : "failed"
                    item.fail(DarkroomError(.dependencyFailed, "a dependency \(reason), so this work did not run"))
                default:
                    break
                }
            }
        }
    }

    /// Starts items given a turn, each on a runner of its own; the turn
    /// of one cancelled meanwhile goes straight to the next.
    private func start(_ started: [any QueuedWork]) {
        var granted = started
        while true {
            let runner = Runner()
            guard let work = take(&granted, for: runner) else { return }
            runner.attach(Task { await runLoop(runner, first: work) })
        }
    }

    /// The first of `granted` that is still waiting, marked running on
    /// `runner`; the turns of those cancelled meanwhile are ended, and the
    /// turns their ends pass on join `granted`. Nil when none is left.
    private func take(_ granted: inout [any QueuedWork], for runner: Runner) -> (any QueuedWork)? {
        while !granted.isEmpty {
            let work = granted.removeFirst()
            if work.markRunning(on: runner) { return work }
            granted += withState { $0.turns.end(work.id, as: .cancelled, now: clock()) }
        }
        return nil
    }

    /// Runs items on `runner` while turns pass to it: an item's end gives
    /// its slot to the next turn, which this task runs itself (others
    /// granted at once get runners of their own). A runner whose task was
    /// cancelled for its item retires, and hands the turns on.
    private func runLoop(_ runner: Runner, first: any QueuedWork) async {
        var next: (any QueuedWork)? = first
        while let work = next {
            let ended = await work.run(on: executor)
            let retires = runner.end()
            var granted = withState { $0.turns.end(work.id, as: ended, now: clock()) }
            next = retires ? nil : take(&granted, for: runner)
            start(granted)
        }
    }

    func reprioritize<Value>(_ item: WorkItem<Value>, to priority: WorkPriority) {
        withState { $0.turns.reprioritize(item.id, to: priority) }
    }

    /// A waiting item was cancelled: it leaves the blocked ones or the
    /// turns, counted as cancelled where it waited.
    func removeWaiting<Value>(_ item: WorkItem<Value>) {
        withState { s in
            if s.blocked.removeValue(forKey: item.id) != nil {
                s.endedBlocked.cancelled += 1
            } else {
                _ = s.turns.cancel(item.id)
            }
        }
    }
}
