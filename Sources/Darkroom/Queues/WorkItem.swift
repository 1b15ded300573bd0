import Synchronization

/// What running work can see: whether it has been cancelled. Work checks it
/// before and after every expensive step (S5).
public struct WorkContext: Sendable {
    let killSwitch: KillSwitch

    public var isCancelled: Bool { killSwitch.isPulled }

    /// Throws ``DarkroomError/Kind/cancelled`` once the item is cancelled.
    public func checkCancellation() throws(DarkroomError) {
        try killSwitch.check()
    }
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
    let killSwitch = KillSwitch()
    private let work: Work
    private let mutable: Mutex<Mutable>
    // Strong: an item holds its queue only until it ends.
    private let queue: WorkQueue

    private struct Mutable {
        var state: WorkState = .waiting
        var priority: WorkPriority
        var result: Result<Value, DarkroomError>?
        var waiters: [CheckedContinuation<Value, Error>] = []
        var observers: [@Sendable (WorkState) -> Void] = []
        var task: Task<Value, Error>?
    }

    init(id: UInt64, priority: WorkPriority, queue: WorkQueue, work: Work) {
        self.id = id
        self.queue = queue
        self.work = work
        self.mutable = Mutex(Mutable(priority: priority))
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

    /// Cancels the item. Waiting work never starts; running work sees it at
    /// its next check (and a libvips call under way stops). Either way the
    /// item ends cancelled and publishes nothing.
    public func cancel() {
        killSwitch.pull()
        let (waiting, task) = mutable.withLock { m in (m.state == .waiting, m.task) }
        task?.cancel()
        if waiting {
            queue.removeWaiting(self)
            complete(.failure(.cancelled))
        }
    }

    /// The result, once the item has ended.
    ///
    /// - Throws: ``DarkroomError/Kind/cancelled``, ``DarkroomError/Kind/dependencyFailed``,
    ///   or the work's own error.
    public var value: Value {
        get async throws(DarkroomError) {
            do {
                return try await withCheckedThrowingContinuation { continuation in
                    let result = mutable.withLock { m -> Result<Value, DarkroomError>? in
                        if m.result == nil { m.waiters.append(continuation) }
                        return m.result
                    }
                    if let result { continuation.resume(with: result.mapError { $0 as Error }) }
                }
            } catch {
                throw error as? DarkroomError ?? .cancelled
            }
        }
    }

    /// Calls `observer` once, when the item ends (at once if it has).
    public func onEnd(_ observer: @escaping @Sendable (WorkState) -> Void) {
        let ended = mutable.withLock { m -> WorkState? in
            if m.state.isTerminal { return m.state }
            m.observers.append(observer)
            return nil
        }
        if let ended { observer(ended) }
    }

    /// Runs the work on the calling runner, unless the item was cancelled
    /// while it waited.
    func run(on executor: BlockingExecutor) async {
        let started = mutable.withLock { m in
            guard m.state == .waiting else { return false }
            m.state = .running
            return true
        }
        guard started else { return }
        queue.itemStarted()
        let context = WorkContext(killSwitch: killSwitch)
        if context.isCancelled {
            complete(.failure(.cancelled))
            return
        }
        let result: Result<Value, DarkroomError>
        switch work {
        case .blocking(let body):
            do {
                result = .success(try await executor.run { try body(context) })
            } catch {
                result = .failure(Self.describe(error))
            }
        case .async(let body):
            // A task of its own, so cancel() can cancel this item alone.
            let task = Task { try await body(context) }
            mutable.withLock { $0.task = task }
            if context.isCancelled { task.cancel() }
            result = await task.result.mapError(Self.describe)
        }
        // Cancelled work publishes nothing, whatever it returned.
        complete(context.isCancelled ? .failure(.cancelled) : result)
    }

    private static func describe(_ error: Error) -> DarkroomError {
        if let error = error as? DarkroomError { return error }
        if error is CancellationError { return .cancelled }
        return DarkroomError(.workFailed, "the work failed", underlying: "\(error)")
    }

    /// Ends the item once; later calls do nothing.
    func complete(_ result: Result<Value, DarkroomError>) {
        let state: WorkState = switch result {
        case .success: .finished
        case .failure(let error) where error.kind == .cancelled: .cancelled
        case .failure: .failed
        }
        let ended = mutable.withLock { m -> (waiters: [CheckedContinuation<Value, Error>], observers: [@Sendable (WorkState) -> Void], wasRunning: Bool)? in
            guard !m.state.isTerminal else { return nil }
            let wasRunning = m.state == .running
            m.state = state
            m.result = result
            m.task = nil
            defer { m.waiters = []; m.observers = [] }
            return (m.waiters, m.observers, wasRunning)
        }
        guard let ended else { return }
        queue.itemEnded(state, wasRunning: ended.wasRunning)
        for waiter in ended.waiters { waiter.resume(with: result.mapError { $0 as Error }) }
        for observer in ended.observers { observer(state) }
    }
}

/// Any work item, whatever its value, as something to depend on.
public protocol WorkDependency: Sendable {
    var state: WorkState { get }
    func onEnd(_ observer: @escaping @Sendable (WorkState) -> Void)
}

extension WorkItem: WorkDependency {}

/// What a queue needs of an item, whatever its value.
protocol QueuedWork: AnyObject, Sendable {
    var id: UInt64 { get }
    func run(on executor: BlockingExecutor) async
    func fail(_ error: DarkroomError)
}

extension WorkItem: QueuedWork {
    func fail(_ error: DarkroomError) {
        complete(.failure(error))
    }
}
