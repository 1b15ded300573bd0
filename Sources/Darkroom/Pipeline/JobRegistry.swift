
/// Work that runs once for everyone who asks for the same key: the
/// pipeline has one for downloads and one for processing runs.
///
/// Every rule lives in its ``JobTable``, one part of the pipeline's
/// ``PipelineState``; this class changes it under the ``PipelineCore``'s
/// lock (where a change of a job's priority reaches its work in the same
/// call) and does what the table's answers say after letting go of it, so
/// no continuation, task or listener is ever called under the lock.
final class JobRegistry<Value: Sendable>: Sendable {
    typealias Key = String
    typealias Work = @Sendable (JobContext<Value>) async throws(DarkroomError) -> Value
    typealias Table = JobTable<String, Value, CheckedContinuation<Value, any Error>>

    /// How a job ends in the state: the continuations its result resumes,
    /// and the byte window's waiters the same step lets in.
    typealias Ending = @Sendable (inout LivePipelineState, UInt64, Result<Value, DarkroomError>)
        -> (results: [CheckedContinuation<Value, any Error>], rooms: [CheckedContinuation<Void, Never>])

    private let core: PipelineCore
    private let part: any WritableKeyPath<LivePipelineState, Table> & Sendable
    private let stage: PipelineStage
    private let ending: Ending

    /// A view of the table at `part` of `core`'s state, the jobs of `stage`;
    /// `ending`, where a job's end changes more than its table.
    init(_ core: PipelineCore, _ part: any WritableKeyPath<LivePipelineState, Table> & Sendable, stage: PipelineStage,
         ending: Ending? = nil) {
        self.core = core
        self.part = part
        self.stage = stage
        self.ending = ending ?? { state, job, result in (state[keyPath: part].finish(job, with: result), []) }
    }

    /// `change` applied to the table, under the core's lock.
    private func withTable<Result>(_ change: (inout Table) -> sending Result) -> sending Result {
        core.state.withLock { change(&$0[keyPath: part]) }
    }

    /// Adds waiter `id` to the job for `key`, or makes the job and starts
    /// `work` for it. Returns whether an existing job was joined (coalesced).
    /// The waiter then calls ``value(for:)``. A `refusable` waiter may be
    /// refused when the work reaches ``JobContext/admit(maxWaiting:error:)``.
    /// `dependent`: the process job whose work the waiter is, whose
    /// priority it takes and follows from then on.
    func join(
        _ key: Key,
        waiter id: UInt64,
        priority: WorkPriority,
        refusable: Bool = false,
        for dependent: UInt64? = nil,
        onEvent: (@Sendable (PipelineEvent) -> Void)?,
        work: @escaping Work
    ) -> Bool {
        let action = core.state.withLock { s in
            s.join(key, in: part, of: stage, waiter: id, priority: priority, refusable: refusable, for: dependent, onEvent: onEvent)
        }
        switch action {
        case .joined:
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
                let ended = self.core.state.withLock { self.ending(&$0, job, result) }
                for continuation in ended.results { continuation.resume(with: result.mapError { $0 as any Error }) }
                for room in ended.rooms { room.resume() }
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
        switch core.state.withLock({ $0.leave(id, in: part, of: stage) }) {
        case .none:
            return
        case .left(let continuation, _):
            continuation?.resume(throwing: DarkroomError.cancelled)
        case .abandoned(let continuation, let task):
            task?.cancel()
            continuation?.resume(throwing: DarkroomError.cancelled)
        }
    }

    /// Changes waiter `id`'s priority; its job follows its waiters' highest.
    func setPriority(_ priority: WorkPriority, for id: UInt64) {
        core.state.withLock { $0.setPriority(priority, for: id, in: part, of: stage) }
    }

    /// Jobs in flight.
    var count: Int { withTable { $0.jobCount } }

    /// Callers waiting for a job's value, in all.
    var waiterCount: Int { withTable { $0.waiters.count } }

    fileprivate func priority(of job: UInt64) -> WorkPriority {
        withTable { $0.priority(of: job) } ?? .normal
    }

    fileprivate func publish(_ event: PipelineEvent, from job: UInt64) {
        for handler in withTable({ $0.eventHandlers(of: job) }) { handler(event) }
    }
}

/// What a job's work can do: name its job (to the turns and jobs it waits
/// in, which follow the job's priority), read its priority, publish events.
struct JobContext<Value: Sendable>: Sendable {
    fileprivate let registry: JobRegistry<Value>
    let job: UInt64

    var priority: WorkPriority { registry.priority(of: job) }

    func publish(_ event: PipelineEvent) { registry.publish(event, from: job) }
}

extension JobRegistry where Value == ImageResponse {
    /// Admission is the process jobs' rule: it reads the runs waiting.
    fileprivate func admit(_ job: UInt64, maxWaiting: Int, error: DarkroomError) throws(DarkroomError) {
        guard let refusal = core.state.withLock({ $0.admit(job, maxWaiting: maxWaiting, error: error) }) else { return }
        for continuation in refusal.refused { continuation.resume(throwing: error) }
        guard refusal.goesOn else { throw error }
    }
}

extension JobContext where Value == ImageResponse {
    /// Admission, where the job's run would be queued: when `maxWaiting`
    /// runs wait already, refuses the job's waiters that may be refused,
    /// with `error`, and throws it when no waiter that must be served is left.
    func admit(maxWaiting: Int, error: DarkroomError) throws(DarkroomError) {
        try registry.admit(job, maxWaiting: maxWaiting, error: error)
    }
}
