import Synchronization
import DarkroomImaging

/// What running work can see: whether it has been cancelled. Work checks it
/// before and after every expensive step.
public struct WorkContext: Sendable {
    let item: any CancellationSource

    public var isCancelled: Bool { item.isCancelled }

    /// Throws ``DarkroomError/Kind/cancelled`` once the item is cancelled.
    public func checkCancellation() throws(DarkroomError) {
        if item.isCancelled { throw .cancelled }
    }

    /// Runs `operation` with `handler` called the moment the item is
    /// cancelled (at once if it already is), on the cancelling thread: how
    /// blocking work hears of a cancel while it runs, to stop a call in
    /// the middle. The queue knows nothing of what the handler stops.
    public func withCancellationHandler<T, E: Error>(
        _ handler: @escaping @Sendable () -> Void,
        operation: () throws(E) -> T
    ) throws(E) -> T {
        guard let id = item.addCancellationHandler(handler) else {
            handler()
            return try operation()
        }
        defer { item.removeCancellationHandler(id) }
        return try operation()
    }
}

/// Whatever can tell running work it was cancelled.
protocol CancellationSource: Sendable {
    var isCancelled: Bool { get }
    /// Registers a handler for a cancel to come; nil when it has come.
    func addCancellationHandler(_ handler: @escaping @Sendable () -> Void) -> UInt64?
    func removeCancellationHandler(_ id: UInt64)
}

/// One piece of work in a ``WorkQueue``: its state, its priority while it
/// waits, its result, and a way to cancel it.
///
/// Awaiting ``value`` does not own the work: a caller that stops waiting
/// leaves it running. Call ``cancel()`` to stop it.
public final class WorkItem<Value: Sendable>: Sendable {
    enum Work: Sendable {
        case async(@Sendable (WorkContext) async throws -> Value)
        case blocking(@Sendable (WorkContext) throws -> Value)
    }

    public let id: UInt64
    /// What the work's ``WorkContext`` reads: pulled by the cancellation
    /// of the task that runs the item (its runner's), or by ``cancel()``
    /// while it waits.
    private let cancellation = CancellationFlag()
    /// The work; dropped once run, with whatever it captured.
    private let work: Locked<Work?>
    private let mutable: Locked<Mutable>
    // Strong: an item holds its queue only until it ends.
    private let queue: WorkQueue

    private struct Mutable {
        var state: WorkState = .waiting
        var priority: WorkPriority
        var result: Result<Value, DarkroomError>?
        /// Everyone told of the end: callers awaiting ``value`` and
        /// dependents alike, through this one list.
        var observers: [@Sendable (Result<Value, DarkroomError>) -> Void] = []
        /// The runner running the item, kept only while it runs.
        var runner: Runner?
    }

    init(id: UInt64, priority: WorkPriority, queue: WorkQueue, work: Work) {
        self.id = id
        self.queue = queue
        self.work = Locked(work)
        self.mutable = Locked(Mutable(priority: priority))
    }

    public var state: WorkState { mutable.withLock { $0.state } }

    public var priority: WorkPriority { mutable.withLock { $0.priority } }

    /// Changes the priority. Waiting work moves in its queue; running or
    /// ended work goes on as it is.
    public func setPriority(_ priority: WorkPriority) {
        let waiting = mutable.withLock { m in
            m.priority = priority
            return m.state == .waiting
        }
        if waiting { queue.reprioritize(self, to: priority) }
    }

    /// Whether the item has been cancelled.
    public var isCancelled: Bool { cancellation.isCancelled }

    /// Cancels the item. Waiting work never starts; the task running work
    /// is cancelled, which its context sees at the next check (and a
    /// handler registered with it stops a call under way). Either way the
    /// item ends cancelled and publishes nothing.
    public func cancel() {
        let (waiting, runner) = mutable.withLock { m in (m.state == .waiting, m.runner) }
        if waiting {
            cancellation.cancel()
            queue.removeWaiting(self)
            complete(.failure(.cancelled))
        }
        // After the lock: the runner cancels its task only if it is still
        // on this item; the task's handler pulls the context's flag.
        runner?.cancel(item: id)
    }

    /// The result, once the item has ended.
    ///
    /// - Throws: ``DarkroomError/Kind/cancelled``, ``DarkroomError/Kind/dependencyFailed``,
    ///   or the work's own error.
    public var value: Value {
        get async throws(DarkroomError) {
            do {
                return try await withCheckedThrowingContinuation { continuation in
                    whenEnded { continuation.resume(with: $0.mapError { $0 as any Error }) }
                }
            } catch {
                throw error as? DarkroomError ?? .cancelled
            }
        }
    }

    func addCancellationHandler(_ handler: @escaping @Sendable () -> Void) -> UInt64? {
        cancellation.addCancellationHandler(handler)
    }

    func removeCancellationHandler(_ id: UInt64) {
        cancellation.removeCancellationHandler(id)
    }

    /// Calls `observer` once, when the item ends (at once if it has).
    public func onEnd(_ observer: @escaping @Sendable (WorkState) -> Void) {
        whenEnded { observer(WorkState(ending: $0)) }
    }

    /// Calls `observer` once with the result, when the item ends (at once
    /// if it has): the one way to hear of the end.
    private func whenEnded(_ observer: @escaping @Sendable (Result<Value, DarkroomError>) -> Void) {
        let ended = mutable.withLock { m -> Result<Value, DarkroomError>? in
            if m.result == nil { m.observers.append(observer) }
            return m.result
        }
        if let ended { observer(ended) }
    }

    /// Moves a waiting item to running on `runner`, its turn come; false
    /// when it was cancelled meanwhile.
    func markRunning(on runner: Runner) -> Bool {
        mutable.withLock { m in
            guard m.state == .waiting else { return false }
            m.state = .running
            m.runner = runner
            runner.begin(id)
            return true
        }
    }

    /// Runs the work in its runner's task, whose cancellation is the
    /// item's (while it runs); how the item ended.
    func run(on executor: BlockingExecutor) async -> WorkState {
        await withTaskCancellationHandler {
            await runWork(on: executor)
        } onCancel: {
            cancellation.cancel()
        }
    }

    private func runWork(on executor: BlockingExecutor) async -> WorkState {
        let context = WorkContext(item: self)
        guard !context.isCancelled, let work = work.withLock({ w in defer { w = nil }; return w }) else {
            return complete(.failure(.cancelled))
        }
        let result: Result<Value, DarkroomError>
        do {
            switch work {
            case .blocking(let body):
                result = .success(try await executor.run { try body(context) })
            case .async(let body):
                result = .success(try await body(context))
            }
        } catch {
            result = .failure(.describing(error))
        }
        // Cancelled work publishes nothing, whatever it returned.
        return complete(context.isCancelled ? .failure(.cancelled) : result)
    }

    /// Ends the item once; later calls do nothing. The state it ended in.
    @discardableResult
    func complete(_ result: Result<Value, DarkroomError>) -> WorkState {
        let (state, observers) = mutable.withLock { m -> (WorkState, [@Sendable (Result<Value, DarkroomError>) -> Void]?) in
            guard !m.state.isTerminal else { return (m.state, nil) }
            m.state = WorkState(ending: result)
            m.result = result
            m.runner = nil
            defer { m.observers = [] }
            return (m.state, m.observers)
        }
        guard let observers else { return state }
        // The work (and what it captured) is let go, in its own lock.
        work.withLock { $0 = nil }
        for observer in observers { observer(result) }
        return state
    }
}

/// Any work item, whatever its value, as something to depend on.
public protocol WorkDependency: Sendable {
    var state: WorkState { get }
    func onEnd(_ observer: @escaping @Sendable (WorkState) -> Void)
}

extension WorkItem: WorkDependency {}

extension WorkItem: CancellationSource {}

/// What a queue needs of an item, whatever its value.
protocol QueuedWork: AnyObject, Sendable {
    var id: UInt64 { get }
    func markRunning(on runner: Runner) -> Bool
    func run(on executor: BlockingExecutor) async -> WorkState
    func fail(_ error: DarkroomError)
}

extension WorkItem: QueuedWork {
    func fail(_ error: DarkroomError) {
        complete(.failure(error))
    }
}

/// The task that runs a queue's items one after another, as their turns
/// pass from each to the next; a running item's ``WorkItem/cancel()``
/// cancels it.
///
/// A cancel names the item it is for, so it never reaches an item the
/// runner took afterwards: one atomic word holds the item being run and a
/// cancelled bit, set only while that item is still the one running; the
/// runner retires after an item cancelled through its task, before it can
/// take another. Nothing is called under its lock, which guards the task.
final class Runner: Sendable {
    private static let cancelledBit: UInt64 = 1 << 63
    /// The item being run (0: none), with ``cancelledBit`` once cancelled.
    private let current = Atomic<UInt64>(0)
    private let task = Locked<(task: Task<Void, Never>?, cancelRequested: Bool)>((nil, false))

    func attach(_ task: Task<Void, Never>) {
        let cancel = self.task.withLock { t in
            t.task = task
            return t.cancelRequested
        }
        if cancel { task.cancel() }
    }

    /// The runner starts `item` (item ids start at 1).
    func begin(_ item: UInt64) {
        current.store(item, ordering: .releasing)
    }

    /// The runner's item has ended. Returns true when it was cancelled
    /// through the runner's task: the runner then retires.
    func end() -> Bool {
        current.exchange(0, ordering: .acquiringAndReleasing) & Self.cancelledBit != 0
    }

    /// Cancels the runner's task if it is running `item`.
    func cancel(item: UInt64) {
        guard current.compareExchange(expected: item, desired: item | Self.cancelledBit, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        let task = self.task.withLock { t in
            t.cancelRequested = true
            return t.task
        }
        task?.cancel()
    }
}
