
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

    /// How a job ends in the state, in one step: the continuations its
    /// result resumes, the byte window's waiters let in, the turns its
    /// slot goes to.
    typealias Ending = @Sendable (inout LivePipelineState, UInt64, Result<Value, DarkroomError>, ContinuousClock.Instant)
        -> LivePipelineState.JobEnding<CheckedContinuation<Value, any Error>>

    private let core: PipelineCore
    private let part: any WritableKeyPath<LivePipelineState, Table> & Sendable
    private let stage: PipelineStage
    private let ending: Ending
    /// The gauges of the stage's slots, which a job's end may free.
    private let gauges: QueueGauges?

    /// A view of the table at `part` of `core`'s state, the jobs of `stage`;
    /// `ending`, where a job's end changes more than its table (its turn,
    /// the bytes it holds), with the `gauges` of the stage's slots.
    init(_ core: PipelineCore, _ part: any WritableKeyPath<LivePipelineState, Table> & Sendable, stage: PipelineStage,
         gauges: QueueGauges? = nil, ending: Ending? = nil) {
        self.core = core
        self.part = part
        self.stage = stage
        self.gauges = gauges
        self.ending = ending ?? { state, job, result, _ in .init(results: state[keyPath: part].finish(job, with: result)) }
    }

    /// `change` applied to the table, under the core's lock.
    private func withTable<Result>(_ change: (inout Table) -> sending Result) -> sending Result {
        core.withState { change(&$0[keyPath: part]) }
    }

    /// Joins the job for `key` as waiter `id`, making the job and starting
    /// `work` for it when there is none, and waits for its value: joining,
    /// starting and beginning to wait are one entry into the core.
    /// `joined` is told, once the waiter is in, whether an existing job was
    /// joined (coalesced). A `refusable` waiter may be refused when the
    /// work reaches ``JobContext/admit(maxWaiting:error:)``. `dependent`:
    /// the process job whose work the waiter is, whose priority it takes
    /// and follows from then on. Cancelling the calling task makes the
    /// waiter leave.
    func value(
        _ key: Key,
        waiter id: UInt64,
        priority: WorkPriority,
        refusable: Bool = false,
        for dependent: UInt64? = nil,
        onEvent: (@Sendable (PipelineEvent) -> Void)?,
        joined: (_ coalesced: Bool) -> Void = { _ in },
        work: @escaping Work
    ) async throws(DarkroomError) -> Value {
        do {
            return try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, any Error>) in
                    let (coalesced, ready) = core.withState { s -> (Bool, Result<Value, DarkroomError>?) in
                        let action = s.join(key, in: part, of: stage, waiter: id, priority: priority, refusable: refusable,
                                            for: dependent, onEvent: onEvent)
                        if case .start(let job) = action {
                            // Started under the lock, so the job has its
                            // task before anyone can leave it.
                            let listeners = s[keyPath: part].listeners(of: job) ?? JobListeners()
                            _ = s[keyPath: part].started(job, task: start(job, listeners: listeners, work))
                        }
                        let coalesced = if case .joined = action { true } else { false }
                        return (coalesced, s[keyPath: part].wait(id, continuation: continuation))
                    }
                    joined(coalesced)
                    if let ready {
                        continuation.resume(with: ready.mapError { $0 as any Error })
                    } else if Task.isCancelled {
                        // Cancelled before the handler could see the waiter.
                        leave(id)
                    }
                }
            } onCancel: {
                leave(id)
            }
        } catch {
            throw error as? DarkroomError ?? .cancelled
        }
    }

    /// The task running job `job`'s work, which ends the job with its result.
    private func start(_ job: UInt64, listeners: JobListeners, _ work: @escaping Work) -> Task<Void, Never> {
        let context = JobContext(registry: self, job: job, listeners: listeners)
        return Task {
            let result: Result<Value, DarkroomError>
            do throws(DarkroomError) {
                result = .success(try await work(context))
            } catch {
                result = .failure(error)
            }
            let now = self.core.clock()
            let turns = LivePipelineState.turns(self.stage)
            let (ended, counts) = self.core.withState { s in (self.ending(&s, job, result, now), s[keyPath: turns].counts) }
            self.gauges?.record(counts)
            for continuation in ended.results { continuation.resume(with: result.mapError { $0 as any Error }) }
            for room in ended.rooms { room.resume() }
            for turn in ended.turns { turn.resume(returning: true) }
        }
    }

    /// Waiter `id` leaves; the last one out cancels the work.
    func leave(_ id: UInt64) {
        switch core.withState({ $0.leave(id, in: part, of: stage) }) {
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
        core.withState { $0.setPriority(priority, for: id, in: part, of: stage) }
    }

    /// Jobs in flight.
    var count: Int { withTable { $0.jobCount } }

    /// Callers waiting for a job's value, in all.
    var waiterCount: Int { withTable { $0.waiters.count } }

}

/// What a job's work can do: name its job (to the turns and jobs it waits
/// in, which follow the job's priority), publish events
/// (to its listeners, without entering the core).
struct JobContext<Value: Sendable>: Sendable {
    fileprivate let registry: JobRegistry<Value>
    let job: UInt64
    fileprivate let listeners: JobListeners

    func publish(_ event: PipelineEvent) { listeners.publish(event) }
}

extension JobRegistry where Value == ImageResponse {
    /// Admission is the process jobs' rule: it reads the runs waiting.
    fileprivate func admit(_ job: UInt64, maxWaiting: Int, error: DarkroomError) throws(DarkroomError) {
        guard let refusal = core.withState({ $0.admit(job, maxWaiting: maxWaiting, error: error) }) else { return }
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
