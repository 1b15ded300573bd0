
/// Work that runs once for everyone who asks for the same key: the
/// pipeline has one for downloads and one for processing runs.
///
/// Every rule lives in its ``JobTable``, one part of the pipeline's
/// ``PipelineState``; this class changes it under the ``PipelineCore``'s
/// lock and does what the table's answers say after letting go of it, so
/// no continuation, task or listener is ever called under the lock.
final class JobRegistry<Value: Sendable>: Sendable {
    typealias Key = String
    typealias Work = @Sendable (JobContext<Value>) async throws(DarkroomError) -> Value
    typealias Table = PipelineState.Jobs<Value>

    private let core: PipelineCore
    private let part: any WritableKeyPath<PipelineState, Table> & Sendable

    /// A view of the table at `part` of `core`'s state.
    init(_ core: PipelineCore, _ part: any WritableKeyPath<PipelineState, Table> & Sendable) {
        self.core = core
        self.part = part
    }

    /// `change` applied to the table, under the core's lock.
    private func withTable<Result>(_ change: (inout Table) -> sending Result) -> sending Result {
        core.state.withLock { change(&$0[keyPath: part]) }
    }

    /// Adds waiter `id` to the job for `key`, or makes the job and starts
    /// `work` for it. Returns whether an existing job was joined (coalesced).
    /// The waiter then calls ``value(for:)``. A `refusable` waiter may be
    /// refused when the work reaches ``JobContext/refuseWhereAllowed(_:)``.
    func join(
        _ key: Key,
        waiter id: UInt64,
        priority: WorkPriority,
        refusable: Bool = false,
        onEvent: (@Sendable (PipelineEvent) -> Void)?,
        work: @escaping Work
    ) -> Bool {
        switch withTable({ $0.join(key, waiter: id, priority: priority, refusable: refusable, onEvent: onEvent) }) {
        case .joined(_, let change):
            change?.tell()
            return true
        case .start(let job):
            let context = JobContext(registry: self, job: job)
            let task = Task {
                let result: Result<Value, DarkroomError>
                do throws(DarkroomError) {
                    result = .success(try await work(context))
                } catch {
                    result = .failure(error)
                }
                let continuations = self.withTable { $0.finish(job, with: result) }
                for continuation in continuations { continuation.resume(with: result.mapError { $0 as any Error }) }
            }
            withTable { $0.started(job, task: task) }?.cancel()
            return false
        }
    }

    /// Waits for the value of the job waiter `id` joined. Cancelling the
    /// calling task makes the waiter leave.
    func value(for id: UInt64) async throws(DarkroomError) -> Value {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    if let ready = withTable({ $0.wait(id, continuation: continuation) }) {
                        continuation.resume(with: ready.mapError { $0 as any Error })
                    }
                }
            } onCancel: {
                leave(id)
            }
        } catch {
            throw error as? DarkroomError ?? .cancelled
        }
    }

    /// Waiter `id` leaves; the last one out cancels the work.
    func leave(_ id: UInt64) {
        switch withTable({ $0.leave(id) }) {
        case .none:
            return
        case .left(let continuation, let change):
            continuation?.resume(throwing: DarkroomError.cancelled)
            change?.tell()
        case .abandoned(let continuation, let task):
            task?.cancel()
            continuation?.resume(throwing: DarkroomError.cancelled)
        }
    }

    /// Changes waiter `id`'s priority; its job follows its waiters' highest.
    func setPriority(_ priority: WorkPriority, for id: UInt64) {
        withTable { $0.setPriority(priority, for: id) }?.tell()
    }

    /// Jobs in flight.
    var count: Int { withTable { $0.jobCount } }

    /// Callers waiting for a job's value, in all.
    var waiterCount: Int { withTable { $0.waiters.count } }

    fileprivate func follow(_ job: UInt64, _ follower: @escaping @Sendable (WorkPriority) -> Void) -> WorkPriority {
        withTable { $0.follow(job, follower) } ?? .normal
    }

    fileprivate func priority(of job: UInt64) -> WorkPriority {
        withTable { $0.priority(of: job) } ?? .normal
    }

    fileprivate func refuse(_ job: UInt64, with error: DarkroomError) throws(DarkroomError) {
        let refusal = withTable { $0.refuse(job, with: error) }
        for continuation in refusal.refused { continuation.resume(throwing: error) }
        refusal.change?.tell()
        guard refusal.goesOn else { throw error }
    }

    fileprivate func publish(_ event: PipelineEvent, from job: UInt64) {
        for handler in withTable({ $0.eventHandlers(of: job) }) { handler(event) }
    }
}

/// What a job's work can do: read and follow the job's priority, publish events.
struct JobContext<Value: Sendable>: Sendable {
    fileprivate let registry: JobRegistry<Value>
    fileprivate let job: UInt64

    /// The job's priority now; `follower` is told each change.
    func followPriority(_ follower: @escaping @Sendable (WorkPriority) -> Void) -> WorkPriority {
        registry.follow(job, follower)
    }

    var priority: WorkPriority { registry.priority(of: job) }

    func publish(_ event: PipelineEvent) { registry.publish(event, from: job) }

    /// Refuses, with `error`, the job's waiters that may be refused; throws
    /// it when no waiter that must be served is left.
    func refuseWhereAllowed(_ error: DarkroomError) throws(DarkroomError) {
        try registry.refuse(job, with: error)
    }
}
