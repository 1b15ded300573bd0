import DarkroomImaging
import Synchronization

/// The two kinds of the pipeline's work: downloads (data jobs, one per
/// source) and processing runs (process jobs, one per processed key).
enum PipelineStage: Sendable {
    case download
    case processing
}

/// What the pipeline coordinates, as one value: the jobs of both kinds,
/// the turns waiting for and holding their slots, the source bytes held,
/// and the admission rule. Each part is a state machine of its own
/// (``JobTable``, ``TurnQueue``, ``SourceBytesWindow``) whose methods return
/// what to do; here they sit together behind one lock, and a change that
/// crosses parts (a job's priority reaching its turn and the job it waits
/// for) is made in one call.
///
/// Generic over who waits, as its parts are: the pipeline's state holds
/// continuations (``PipelineContinuations``), tests any plain values.
struct PipelineState<Waiters: PipelineWaiters> {
    typealias Turns = TurnQueue<Waiters.Turn>

    var processJobs = JobTable<String, ImageResponse, Waiters.Response>()
    var dataJobs = JobTable<String, SourceData, Waiters.Source>()
    var downloads: Turns
    var runs: Turns
    var sourceBytes: SourceBytesWindow<Waiters.Room>
    /// Each data job's download ticket in the byte window, ended with the job.
    var downloadTickets: [UInt64: UInt64] = [:]
    /// The source each process job's run holds in the byte window.
    var sourceHolds: [UInt64: String] = [:]
    /// The process job each data job's waiter is the work of.
    var runOfWaiter: [UInt64: UInt64] = [:]
    /// The turn of each job whose turn ends with the job, by stage. Kept
    /// apart from the job's own link to its turn (``JobTable/link(_:turn:)``):
    /// an abandoned job leaves its table before its work ends, and its
    /// slot must still pass on then.
    var downloadTurnOfJob: [UInt64: UInt64] = [:]
    var runTurnOfJob: [UInt64: UInt64] = [:]

    init(downloads: Int, runs: Int, agingInterval: Duration?, sourceByteLimit: Int) {
        self.downloads = TurnQueue(limit: downloads, agingInterval: agingInterval)
        self.runs = TurnQueue(limit: runs, agingInterval: agingInterval)
        sourceBytes = SourceBytesWindow(limit: sourceByteLimit, downloadsBeforeSizeKnown: downloads)
    }

    /// Where a stage's turns are. A key path, not a computed property,
    /// so a change is made in place rather than to a copy.
    static func turns(_ stage: PipelineStage) -> any WritableKeyPath<PipelineState, Turns> & Sendable {
        switch stage {
        case .download: \.downloads
        case .processing: \.runs
        }
    }

    /// Carries a job's new priority on to its work: its waiting turn moves
    /// in its queue, and a process job's waiter in its data job counts at
    /// it (which may raise the data job and its download's turn in turn).
    mutating func follow(_ change: JobPriorityChange?, of stage: PipelineStage) {
        guard let change else { return }
        if let turn = change.turn { self[keyPath: Self.turns(stage)].reprioritize(turn, to: change.priority) }
        if stage == .processing, let upstream = change.upstream {
            follow(dataJobs.setPriority(change.priority, for: upstream), of: .download)
        }
    }

    /// Waiter `id` joins the job for `key` among the jobs at `part`, of
    /// `stage`, making the job if there is none. `dependent`: the process
    /// job whose work the waiter is (a data job's waiter), whose priority
    /// it takes and follows from then on.
    mutating func join<Value, Waiter>(
        _ key: String, in part: WritableKeyPath<Self, JobTable<String, Value, Waiter>>, of stage: PipelineStage,
        waiter id: UInt64, priority: WorkPriority, refusable: Bool = false, for dependent: UInt64? = nil,
        onEvent: JobTable<String, Value, Waiter>.EventHandler?
    ) -> JobTable<String, Value, Waiter>.JoinAction {
        let priority = dependent.flatMap { processJobs.link($0, upstream: id) } ?? priority
        if let dependent { runOfWaiter[id] = dependent }
        let action = self[keyPath: part].join(key, waiter: id, priority: priority, refusable: refusable, onEvent: onEvent)
        if case .joined(_, let change) = action { follow(change, of: stage) }
        return action
    }

    /// Waiter `id` leaves its job among the jobs at `part`; the job's work
    /// follows its new priority.
    mutating func leave<Value, Waiter>(_ id: UInt64, in part: WritableKeyPath<Self, JobTable<String, Value, Waiter>>,
                                       of stage: PipelineStage) -> JobTable<String, Value, Waiter>.LeaveAction {
        let action = self[keyPath: part].leave(id)
        if case .left(_, let change) = action { follow(change, of: stage) }
        if stage == .download { runOfWaiter[id] = nil }
        return action
    }

    /// Waiter `id` changes its priority; its job, and the job's work, follow.
    mutating func setPriority<Value, Waiter>(_ priority: WorkPriority, for id: UInt64,
                                             in part: WritableKeyPath<Self, JobTable<String, Value, Waiter>>, of stage: PipelineStage) {
        follow(self[keyPath: part].setPriority(priority, for: id), of: stage)
    }

    /// Turn `id` asks for a slot of `stage`: for job `job`'s work, at the
    /// job's priority (and following it from now on), or at `priority`
    /// when it is no job's or the job has ended.
    mutating func askTurn(_ id: UInt64, of stage: PipelineStage, for job: UInt64?, priority: WorkPriority, endsWithJob: Bool = false,
                          continuation: Waiters.Turn, now: ContinuousClock.Instant) -> Turns.Answer {
        var priority = priority
        if let job, endsWithJob {
            switch stage {
            case .download: downloadTurnOfJob[job] = id
            case .processing: runTurnOfJob[job] = id
            }
        }
        if let job {
            let linked = switch stage {
            case .download: dataJobs.link(job, turn: id)
            case .processing: processJobs.link(job, turn: id)
            }
            priority = linked ?? priority
        }
        return self[keyPath: Self.turns(stage)].ask(id, priority: priority, continuation: continuation, now: now)
    }

    /// Data job `job`'s download asks the byte window for room, as ticket
    /// `ticket`: true to start now (see ``SourceBytesWindow/ask(_:continuation:)``).
    /// The ticket ends when the job does, in ``finishSource(_:with:)``.
    mutating func askRoom(_ ticket: UInt64, for job: UInt64, continuation: Waiters.Room) -> Bool {
        downloadTickets[job] = ticket
        return sourceBytes.ask(ticket, continuation: continuation)
    }

    /// What a job's end leaves to do after unlocking: its waiters to
    /// resume with its result, the downloads the byte window lets in, and
    /// the turns its slot goes to.
    struct JobEnding<Result> {
        var results: [Result] = []
        var rooms: [Waiters.Room] = []
        var turns: [Waiters.Turn] = []
    }

    /// Data job `job` ended: its result reaches its waiters and, in the same
    /// step, each of them that is a run's holds the source's bytes (until
    /// its process job ends), and only then does the download's room in
    /// the window end; its download's slot passes on. So the bytes count
    /// from arrival until the last run ends, with no moment between
    /// download and run where they count nowhere and a further download is
    /// let in.
    mutating func finishSource(_ job: UInt64, with result: Result<SourceData, DarkroomError>,
                               now: ContinuousClock.Instant) -> JobEnding<Waiters.Source> {
        let ending = dataJobs.finishServing(job, with: result)
        for id in ending.served {
            guard let run = runOfWaiter.removeValue(forKey: id) else { continue }
            if case .success(let source) = result, let key = ending.key { holdSource(key, bytes: source.data.count, for: run) }
        }
        var done = JobEnding<Waiters.Source>(results: ending.continuations)
        done.rooms = downloadTickets.removeValue(forKey: job).map { sourceBytes.downloadEnded($0) } ?? []
        done.turns = downloadTurnOfJob.removeValue(forKey: job).map { downloads.end($0, as: WorkState(ending: result), now: now) } ?? []
        return done
    }

    /// Process job `job` ended: its result reaches its waiters, its run's
    /// slot passes on, and the source bytes it held leave the window, in
    /// one step.
    mutating func finishRun(_ job: UInt64, with result: Result<ImageResponse, DarkroomError>,
                            now: ContinuousClock.Instant) -> JobEnding<Waiters.Response> {
        var done = JobEnding<Waiters.Response>(results: processJobs.finish(job, with: result))
        done.turns = runTurnOfJob.removeValue(forKey: job).map { runs.end($0, as: WorkState(ending: result), now: now) } ?? []
        done.rooms = releaseSource(of: job)
        return done
    }

    /// Process job `holder`'s run holds the source `key` of `bytes`
    /// (counted once per key, however many hold it); a run holds one source.
    mutating func holdSource(_ key: String, bytes: Int, for holder: UInt64) {
        guard sourceHolds[holder] == nil else { return }
        sourceHolds[holder] = key
        sourceBytes.hold(key, bytes: bytes)
    }

    /// `holder`'s run ended: the waiters its bytes leaving let in. Nothing
    /// for a run that holds nothing (its data job failed).
    mutating func releaseSource(of holder: UInt64) -> [Waiters.Room] {
        guard let key = sourceHolds.removeValue(forKey: holder) else { return [] }
        return sourceBytes.release(key)
    }

    /// Admission for process job `job`, asked where its run would be
    /// queued: when `maxWaiting` runs wait already, its waiters that may be
    /// refused are. Nil when the machine is not overloaded.
    mutating func admit(_ job: UInt64, maxWaiting: Int, error: DarkroomError) -> JobTable<String, ImageResponse, Waiters.Response>.Refusal? {
        guard runs.counts.waiting >= maxWaiting else { return nil }
        let refusal = processJobs.refuse(job, with: error)
        follow(refusal.change, of: .processing)
        return refusal
    }
}

/// Who waits in each part of a ``PipelineState``: a caller for a
/// processed image, for a source, for a turn, for room in the byte window.
protocol PipelineWaiters {
    associatedtype Response
    associatedtype Source
    associatedtype Turn
    associatedtype Room
}

/// The pipeline's waiters: suspended tasks.
enum PipelineContinuations: PipelineWaiters {
    typealias Response = CheckedContinuation<ImageResponse, any Error>
    typealias Source = CheckedContinuation<SourceData, any Error>
    typealias Turn = CheckedContinuation<Bool, Never>
    typealias Room = CheckedContinuation<Void, Never>
}

/// The pipeline's state as its core holds it.
typealias LivePipelineState = PipelineState<PipelineContinuations>

/// The pipeline's one lock for its coordination: every join, leave,
/// priority change, refusal and end of a job, every turn asked, given and
/// ended, and every byte reserved or released, is one call under it. What
/// a call returns (continuations to resume, a task to cancel) is done after
/// it lets go, by the views over it: ``JobRegistry``, ``PipelineQueue`` and
/// ``SourceBytesGate``.
final class PipelineCore: Sendable {
    private let state: Locked<LivePipelineState>
    /// The time aging is measured by; tests move it by hand.
    let clock: @Sendable () -> ContinuousClock.Instant
    private let nextTurn = Atomic<UInt64>(1)
    private let entries = Atomic<Int>(0)

    init(sourceByteLimit: Int, downloads: Int, runs: Int, agingInterval: Duration?,
         clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        self.clock = clock
        state = Locked(LivePipelineState(downloads: downloads, runs: runs, agingInterval: agingInterval, sourceByteLimit: sourceByteLimit))
    }

    /// `change` made to the state under the core's one lock: the one door
    /// into it, counted.
    func withState<Result>(_ change: (inout LivePipelineState) -> sending Result) -> sending Result {
        entries.add(1, ordering: .relaxed)
        return state.withLock(change)
    }

    /// How many times the state has been entered so far: what a test
    /// counts a request's trips into the core by.
    var entryCount: Int { entries.load(ordering: .relaxed) }

    func makeTurnID() -> UInt64 {
        nextTurn.wrappingAdd(1, ordering: .relaxed).oldValue
    }
}

// What a job's end leaves to do crosses out of the core's lock.
extension PipelineState.JobEnding: Sendable where Result: Sendable, Waiters.Room: Sendable, Waiters.Turn: Sendable {}
