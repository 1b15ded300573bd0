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
    /// of the item's task while it runs (or by ``cancel()`` while it waits).
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
        /// The task running the item, kept only while it runs.
        var task: Task<Void, Never>?
        /// A cancel came while running, before the task was kept.
        var cancelRequested = false
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

    /// Cancels the item. Waiting work never starts; running work's task is
    /// cancelled, which its context sees at the next check (and a handler
    /// registered with it stops a call under way). Either way the item
    /// ends cancelled and publishes nothing.
    public func cancel() {
        let (waiting, task) = mutable.withLock { m -> (Bool, Task<Void, Never>?) in
            if m.state == .running { m.cancelRequested = true }
            return (m.state == .waiting, m.state == .running ? m.task : nil)
        }
        if waiting {
            cancellation.cancel()
            queue.removeWaiting(self)
            complete(.failure(.cancelled))
        }
        // After the lock: the task's handler pulls the context's flag.
        task?.cancel()
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

    /// Runs the item in a task of its own, its turn come; `whenEnded` is
    /// told how it ended. False, and nothing run, when it was cancelled
    /// while its turn came.
    func launch(on executor: BlockingExecutor, whenEnded: @escaping @Sendable (WorkState) -> Void) -> Bool {
        let running = mutable.withLock { m in
            guard m.state == .waiting else { return false }
            m.state = .running
            return true
        }
        guard running else { return false }
        let task = Task {
            await withTaskCancellationHandler {
                await run(on: executor)
            } onCancel: {
                cancellation.cancel()
            }
            whenEnded(state)
        }
        let cancelled = mutable.withLock { m in
            guard m.state == .running else { return false }
            m.task = task
            return m.cancelRequested
        }
        if cancelled { task.cancel() }
        return true
    }

    /// Runs the work, in the item's task.
    private func run(on executor: BlockingExecutor) async {
        let context = WorkContext(item: self)
        guard !context.isCancelled, let work = work.withLock({ w in defer { w = nil }; return w }) else {
            complete(.failure(.cancelled))
            return
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
        complete(context.isCancelled ? .failure(.cancelled) : result)
    }

    /// Ends the item once; later calls do nothing.
    func complete(_ result: Result<Value, DarkroomError>) {
        let observers = mutable.withLock { m -> [@Sendable (Result<Value, DarkroomError>) -> Void]? in
            guard !m.state.isTerminal else { return nil }
            m.state = WorkState(ending: result)
            m.result = result
            m.task = nil
            defer { m.observers = [] }
            return m.observers
        }
        guard let observers else { return }
        // The work (and what it captured) is let go, in its own lock.
        work.withLock { $0 = nil }
        for observer in observers { observer(result) }
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
    func launch(on executor: BlockingExecutor, whenEnded: @escaping @Sendable (WorkState) -> Void) -> Bool
    func fail(_ error: DarkroomError)
}

extension WorkItem: QueuedWork {
    func fail(_ error: DarkroomError) {
        complete(.failure(error))
    }
}
