import Synchronization

/// Work that runs once for everyone who waits for it (S16).
///
/// - Its priority is the highest of its waiters'; a change is passed on to
///   whatever the work registered (a queued item, a job it waits for).
/// - A waiter that leaves (its task cancelled) gets `cancelled`; the work goes
///   on for the others. When the last waiter leaves, the work is cancelled
///   and publishes nothing.
/// - Events the work publishes (progress, the original's arrival) reach
///   every current waiter.
final class SharedJob<Value: Sendable>: Sendable {
    typealias Work = @Sendable (JobContext<Value>) async throws(DarkroomError) -> Value

    struct Waiter {
        var priority: WorkPriority
        var continuation: CheckedContinuation<Value, Error>?
        var onEvent: (@Sendable (PipelineEvent) -> Void)?
        var leftEarly = false
    }

    private struct State {
        var waiters: [UInt64: Waiter] = [:]
        var result: Result<Value, DarkroomError>?
        var abandoned = false
        var priority: WorkPriority
        var priorityListeners: [@Sendable (WorkPriority) -> Void] = []
        var task: Task<Void, Never>?
    }

    private let state: Mutex<State>
    private let onEnd: @Sendable (SharedJob<Value>) -> Void

    init(priority: WorkPriority, onEnd: @escaping @Sendable (SharedJob<Value>) -> Void) {
        state = Mutex(State(priority: priority))
        self.onEnd = onEnd
    }

    var priority: WorkPriority { state.withLock { $0.priority } }
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Starts the work. Called once, by the registry that made the job; does
    /// nothing if every waiter has already left.
    func start(_ work: @escaping Work) {
        let context = JobContext(job: self)
        state.withLock { s in
            guard !s.abandoned else { return }
            s.task = Task {
                let result: Result<Value, DarkroomError>
                do throws(DarkroomError) {
                    result = .success(try await work(context))
                } catch {
                    result = .failure(error)
                }
                self.finish(result)
            }
        }
    }

    /// Adds a waiter. Fails when the job has been abandoned by all its
    /// waiters (the caller then makes a new job).
    func join(_ id: UInt64, priority: WorkPriority, onEvent: (@Sendable (PipelineEvent) -> Void)?) -> Bool {
        let (joined, raised) = state.withLock { s -> (Bool, (WorkPriority, [@Sendable (WorkPriority) -> Void])?) in
            guard !s.abandoned else { return (false, nil) }
            s.waiters[id] = Waiter(priority: priority, onEvent: onEvent)
            return (true, Self.recomputePriority(&s))
        }
        if let (priority, listeners) = raised { listeners.forEach { $0(priority) } }
        return joined
    }

    /// Waits for the value, as waiter `id`. Cancelling the calling task
    /// makes the waiter leave.
    func value(for id: UInt64) async throws(DarkroomError) -> Value {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                    let ready = state.withLock { s -> Result<Value, DarkroomError>? in
                        if let result = s.result { return result }
                        guard let waiter = s.waiters[id], !waiter.leftEarly else {
                            s.waiters[id] = nil
                            return .failure(.cancelled)
                        }
                        s.waiters[id]?.continuation = continuation
                        return nil
                    }
                    if let ready { continuation.resume(with: ready.mapError { $0 as Error }) }
                }
            } onCancel: {
                leave(id)
            }
        } catch {
            throw error as? DarkroomError ?? .cancelled
        }
    }

    /// Changes one waiter's priority; the job follows the highest.
    func setPriority(_ priority: WorkPriority, for id: UInt64) {
        let changed = state.withLock { s -> (WorkPriority, [@Sendable (WorkPriority) -> Void])? in
            guard s.waiters[id] != nil else { return nil }
            s.waiters[id]?.priority = priority
            return Self.recomputePriority(&s)
        }
        if let (priority, listeners) = changed { listeners.forEach { $0(priority) } }
    }

    /// A waiter leaves. When it was the last, the work is cancelled.
    private enum LeaveOutcome {
        case nothing
        case left(CheckedContinuation<Value, Error>?, (WorkPriority, [@Sendable (WorkPriority) -> Void])?)
        case abandoned([CheckedContinuation<Value, Error>], Task<Void, Never>?)
    }

    func leave(_ id: UInt64) {
        let outcome = state.withLock { s -> LeaveOutcome in
            guard s.result == nil, var waiter = s.waiters[id], !waiter.leftEarly else { return .nothing }
            let continuation = waiter.continuation
            if continuation == nil {
                // Left before it began to wait: value(for:) will return at once.
                waiter.leftEarly = true
                s.waiters[id] = waiter
            } else {
                s.waiters[id] = nil
            }
            guard s.waiters.values.contains(where: { !$0.leftEarly }) else {
                s.abandoned = true
                s.result = .failure(.cancelled)
                let continuations = s.waiters.values.compactMap(\.continuation) + [continuation].compactMap { $0 }
                s.waiters = [:]
                s.priorityListeners = []
                return .abandoned(continuations, s.task)
            }
            return .left(continuation, Self.recomputePriority(&s))
        }
        switch outcome {
        case .nothing:
            return
        case .left(let continuation, let change):
            continuation?.resume(throwing: DarkroomError.cancelled)
            if let (priority, listeners) = change { listeners.forEach { $0(priority) } }
        case .abandoned(let continuations, let task):
            onEnd(self)
            task?.cancel()
            continuations.forEach { $0.resume(throwing: DarkroomError.cancelled) }
        }
    }

    private func finish(_ result: Result<Value, DarkroomError>) {
        let continuations = state.withLock { s -> [CheckedContinuation<Value, Error>] in
            guard s.result == nil else { return [] }   // abandoned: already ended
            s.result = result
            let continuations = s.waiters.values.compactMap(\.continuation)
            s.waiters = [:]
            s.priorityListeners = []
            return continuations
        }
        // Forgotten first, so whoever asks next starts afresh.
        onEnd(self)
        for continuation in continuations { continuation.resume(with: result.mapError { $0 as Error }) }
    }

    fileprivate func publish(_ event: PipelineEvent) {
        let handlers = state.withLock { s in s.waiters.values.compactMap(\.onEvent) }
        for handler in handlers { handler(event) }
    }

    fileprivate func onPriorityChange(_ listener: @escaping @Sendable (WorkPriority) -> Void) -> WorkPriority {
        state.withLock { s in
            s.priorityListeners.append(listener)
            return s.priority
        }
    }

    /// Sets the job's priority to its waiters' highest; returns it with the
    /// listeners to tell when it changed.
    private static func recomputePriority(_ s: inout State) -> (WorkPriority, [@Sendable (WorkPriority) -> Void])? {
        guard let highest = s.waiters.values.filter({ !$0.leftEarly }).map(\.priority).max(), highest != s.priority else { return nil }
        s.priority = highest
        return (highest, s.priorityListeners)
    }
}

/// What a job's work can do: read and follow the job's priority, publish events.
struct JobContext<Value: Sendable>: Sendable {
    fileprivate let job: SharedJob<Value>

    /// The job's priority now; `listener` is called with each change.
    func followPriority(_ listener: @escaping @Sendable (WorkPriority) -> Void) -> WorkPriority {
        job.onPriorityChange(listener)
    }

    var priority: WorkPriority { job.priority }

    func publish(_ event: PipelineEvent) { job.publish(event) }
}

/// Jobs in flight, by key: a request for a key that is already in flight
/// joins that job instead of starting another. Finished work is forgotten.
final class JobRegistry<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private let jobs = Mutex<[Key: SharedJob<Value>]>([:])

    /// Joins the job for `key`, or makes and starts one with `work`.
    /// Returns the job, and whether an existing one was joined (coalesced).
    func join(
        _ key: Key,
        waiter id: UInt64,
        priority: WorkPriority,
        onEvent: (@Sendable (PipelineEvent) -> Void)?,
        work: @escaping SharedJob<Value>.Work
    ) -> (job: SharedJob<Value>, coalesced: Bool) {
        let (job, isNew) = jobs.withLock { jobs -> (SharedJob<Value>, Bool) in
            if let existing = jobs[key], existing.join(id, priority: priority, onEvent: onEvent) {
                return (existing, false)
            }
            let job = SharedJob<Value>(priority: priority) { [weak self] ended in
                self?.remove(key, ended)
            }
            _ = job.join(id, priority: priority, onEvent: onEvent)
            jobs[key] = job
            return (job, true)
        }
        if isNew { job.start(work) }
        return (job, !isNew)
    }

    private func remove(_ key: Key, _ job: SharedJob<Value>) {
        jobs.withLock { jobs in
            if jobs[key] === job { jobs[key] = nil }
        }
    }

    var count: Int { jobs.withLock { $0.count } }
}
