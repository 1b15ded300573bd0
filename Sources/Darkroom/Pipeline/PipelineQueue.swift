import Metrics

/// One kind of the pipeline's work, downloads or processing runs, seen
/// from outside the core: its counts and gauges, and work run in a turn.
///
/// A turn is asked, given, moved and ended in the ``PipelineCore``'s state
/// (``TurnQueue``), under its one lock, with the job it serves; its caller
/// waits for it and then runs the work in its own task, so the pipeline's
/// downloads and runs make no task of their own.
struct PipelineQueue: Sendable {
    let name: String
    let stage: PipelineStage
    let maxConcurrent: Int
    /// Where blocking work run in a turn goes.
    let executor: BlockingExecutor
    private let core: PipelineCore
    private let turns: any WritableKeyPath<LivePipelineState, LivePipelineState.Turns> & Sendable
    let gauges: QueueGauges

    init(_ core: PipelineCore, _ stage: PipelineStage, name: String, maxConcurrent: Int, executor: BlockingExecutor,
         metricsFactory: any MetricsFactory) {
        self.core = core
        self.stage = stage
        turns = LivePipelineState.turns(stage)
        self.name = name
        self.maxConcurrent = maxConcurrent
        self.executor = executor
        gauges = QueueGauges(name: name, factory: metricsFactory)
    }

    /// `change` applied to the stage's turns under the core's lock; the
    /// gauges are set from the counts read in the same hold.
    private func withTurns<Result: Sendable>(_ change: (inout LivePipelineState.Turns) -> Result) -> Result {
        withState { change(&$0[keyPath: turns]) }
    }

    private func withState<Result: Sendable>(_ change: (inout LivePipelineState) -> Result) -> Result {
        let (result, counts) = core.withState { s in
            let result = change(&s)
            return (result, s[keyPath: turns].counts)
        }
        gauges.record(counts)
        return result
    }

    /// How many turns wait and run now, and how many have ended so far.
    var counts: WorkQueueCounts { core.withState { $0[keyPath: turns].counts } }

    /// Turns waiting at `priority` (before aging).
    func waiting(at priority: WorkPriority) -> Int { core.withState { $0[keyPath: turns].waiting(at: priority) } }

    /// Stops giving slots; running work goes on.
    func suspend() { withTurns { $0.suspend() } }

    /// Gives slots again.
    func resume() {
        let now = core.clock()
        start(withTurns { $0.resume(now: now) })
    }

    /// Cancels every waiting turn at or below `priority`; returns how many.
    func cancelWaiting(atOrBelow priority: WorkPriority) -> Int {
        let cancelled = withTurns { $0.cancelWaiting(atOrBelow: priority) }
        for continuation in cancelled { continuation.resume(returning: false) }
        return cancelled.count
    }

    /// Waits for a turn, then runs `work` in the calling task, as one of
    /// the stage's running turns. For job `job`'s work (whose priority the
    /// turn follows, in the core) or, with no job, at `priority`.
    /// Cancelling the calling task gives up the turn while it waits, and is
    /// the work's cancellation while it runs (the one path a cancel takes);
    /// cancelled work publishes nothing, whatever it returned.
    /// `endsWithJob`: the turn is ended by the job's end, in the same step
    /// as its waiters are answered, not when `work` returns.
    func runInTurn<Value: Sendable>(
        for job: UInt64?,
        priority: WorkPriority = .normal,
        endsWithJob: Bool = false,
        _ work: () async throws(DarkroomError) -> Value
    ) async throws(DarkroomError) -> Value {
        let id = core.makeTurnID()
        let endsWithJob = endsWithJob && job != nil
        guard await turn(id, for: job, priority: priority, endsWithJob: endsWithJob) else { throw .cancelled }
        let result: Result<Value, DarkroomError>
        do throws(DarkroomError) {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        let ended = Task.isCancelled ? .failure(.cancelled) : result
        if !endsWithJob {
            let now = core.clock()
            start(withTurns { $0.end(id, as: WorkState(ending: ended), now: now) })
        }
        return try ended.get()
    }

    /// ``runInTurn(for:priority:_:)`` for blocking work, run on the
    /// stage's executor with a kill switch of its own, which the calling
    /// task's cancellation pulls: a libvips computation stops in the middle.
    func runBlockingInTurn<Value: Sendable>(
        for job: UInt64?,
        priority: WorkPriority = .normal,
        endsWithJob: Bool = false,
        _ work: @escaping @Sendable (KillSwitch) throws(DarkroomError) -> Value
    ) async throws(DarkroomError) -> Value {
        let executor = self.executor
        return try await runInTurn(for: job, priority: priority, endsWithJob: endsWithJob) { () throws(DarkroomError) in
            do {
                return try await executor.runStoppable { killSwitch throws(DarkroomError) in
                    try killSwitch.check()
                    return try work(killSwitch)
                }
            } catch {
                throw DarkroomError.describing(error)
            }
        }
    }

    /// Waits until turn `id` has a slot: true then, false when it was
    /// cancelled first.
    private func turn(_ id: UInt64, for job: UInt64?, priority: WorkPriority, endsWithJob: Bool) async -> Bool {
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let now = core.clock()
                let answer = withState {
                    $0.askTurn(id, of: stage, for: job, priority: priority, endsWithJob: endsWithJob, continuation: continuation, now: now)
                }
                if answer == .runs {
                    continuation.resume(returning: true)
                } else if Task.isCancelled {
                    // Cancelled before the handler could see the turn.
                    withTurns { $0.cancel(id) }?.resume(returning: false)
                }
            }
        } onCancel: {
            withTurns { $0.cancel(id) }?.resume(returning: false)
        }
        return granted
    }

    /// Resumes the turns a slot went to.
    private func start(_ started: [CheckedContinuation<Bool, Never>]) {
        for continuation in started { continuation.resume(returning: true) }
    }
}
