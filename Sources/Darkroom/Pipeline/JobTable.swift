/// The rules of coalesced work, as a plain value: one job per key for
/// everyone who asks, a job's priority is its waiters' highest, the last
/// waiter leaving abandons the job, a job's result reaches every waiter,
/// and admission is each waiter's own: when a job would add work to an
/// overloaded machine, the waiters that may be refused are, and the job
/// goes on for those that must be served.
///
/// It does nothing itself. Each mutating method changes the table and
/// returns what the caller must do once it has let go of its lock: resume
/// these continuations, cancel that task, move the job's work to its new
/// priority. ``PipelineState`` holds two, for the two kinds of jobs, and
/// carries a change of priority on to the work a job waits in (its turn,
/// the job it waits for) in the same call; tests drive it with plain values
/// (any type stands in for a continuation).
struct JobTable<Key: Hashable, Value, Continuation> {
    typealias JobID = UInt64
    typealias WaiterID = UInt64
    typealias EventHandler = @Sendable (PipelineEvent) -> Void

    /// One caller's part in a job.
    enum WaiterState {
        /// Joined, not yet waiting for the value.
        case joined
        case waiting(Continuation)
        /// Left before it began to wait: its wait ends at once, cancelled.
        case leftEarly
        /// The job ended before the waiter began to wait.
        case ended(Result<Value, DarkroomError>)
    }

    struct Waiter {
        let job: JobID
        var priority: WorkPriority
        var state: WaiterState
        /// Whether it may be refused when the machine is overloaded
        /// (``ImageRequest/Admission/unlessOverloaded``).
        let refusable: Bool

        /// Whether it still counts towards the job: its priority, and
        /// keeping the job alive.
        var isPresent: Bool {
            switch state {
            case .joined, .waiting: true
            case .leftEarly, .ended: false
            }
        }
    }

    struct Job {
        let key: Key
        var priority: WorkPriority
        var waiters: Set<WaiterID> = []
        /// What the job's work waits in, which follows its priority: its
        /// turn for a slot, and its waiter in the job it waits for.
        var turn: UInt64?
        var upstream: WaiterID?
        var task: Task<Void, Never>?
        /// Its waiters' event handlers, read without the core's lock.
        let listeners = JobListeners()
    }

    typealias PriorityChange = JobPriorityChange

    enum JoinAction {
        /// A new job: start its work, then hand its task to ``started(_:task:)``.
        case start(JobID)
        /// An existing job was joined.
        case joined(JobID, PriorityChange?)
    }

    enum LeaveAction {
        case none
        /// The waiter left; resume its continuation (if it was waiting)
        /// with `cancelled`, and move the job's work to its new priority.
        case left(Continuation?, PriorityChange?)
        /// The last waiter left: resume it with `cancelled`, and cancel the
        /// work, which publishes nothing.
        case abandoned(Continuation?, Task<Void, Never>?)
    }

    /// What ``refuse(_:with:)`` left to do.
    struct Refusal {
        /// Waiting continuations to resume with the refusal.
        var refused: [Continuation] = []
        /// Whether a waiter that must be served is left; if not, the job
        /// is over and its work ends with the refusal.
        var goesOn = false
        var change: PriorityChange?
    }

    private(set) var jobs: [JobID: Job] = [:]
    private var jobsByKey: [Key: JobID] = [:]
    private(set) var waiters: [WaiterID: Waiter] = [:]
    private var nextJob: JobID = 1

    /// Adds waiter `id` to the job for `key`, making the job if there is none.
    mutating func join(_ key: Key, waiter id: WaiterID, priority: WorkPriority, refusable: Bool = false, onEvent: EventHandler?) -> JoinAction {
        if let existing = jobsByKey[key] {
            waiters[id] = Waiter(job: existing, priority: priority, state: .joined, refusable: refusable)
            jobs[existing]?.waiters.insert(id)
            if let onEvent { jobs[existing]?.listeners.add(id, onEvent) }
            return .joined(existing, recomputePriority(existing))
        }
        let job = nextJob
        nextJob += 1
        jobs[job] = Job(key: key, priority: priority, waiters: [id])
        jobsByKey[key] = job
        waiters[id] = Waiter(job: job, priority: priority, state: .joined, refusable: refusable)
        if let onEvent { jobs[job]?.listeners.add(id, onEvent) }
        return .start(job)
    }

    /// The job is about to add work to an overloaded machine: each present
    /// waiter that may be refused leaves with `error` (now if it waits,
    /// when it begins to wait otherwise); the others keep the job going.
    /// Asked at the point where the work would start, so a waiter that
    /// joins a job already past it is never refused.
    mutating func refuse(_ job: JobID, with error: DarkroomError) -> Refusal {
        guard let current = jobs[job] else { return Refusal() }
        var refusal = Refusal()
        for id in current.waiters {
            guard let waiter = waiters[id], waiter.isPresent, waiter.refusable else { continue }
            jobs[job]?.waiters.remove(id)
            current.listeners.remove(id)
            if case .waiting(let continuation) = waiter.state {
                refusal.refused.append(continuation)
                waiters[id] = nil
            } else {
                waiters[id]?.state = .ended(.failure(error))
            }
        }
        refusal.goesOn = jobs[job]?.waiters.contains { waiters[$0]?.isPresent == true } ?? false
        if refusal.goesOn {
            refusal.change = recomputePriority(job)
        } else {
            remove(job)
        }
        return refusal
    }

    /// The task running a job's work. Returns it back when the job has
    /// already ended (everyone left before it started): cancel it.
    mutating func started(_ job: JobID, task: Task<Void, Never>) -> Task<Void, Never>? {
        guard jobs[job] != nil else { return task }
        jobs[job]?.task = task
        return nil
    }

    /// Waiter `id` begins to wait. Returns the result when there is one
    /// already (or the waiter has left, or never joined: `cancelled`);
    /// nil when the continuation is kept, to be resumed later.
    mutating func wait(_ id: WaiterID, continuation: Continuation) -> Result<Value, DarkroomError>? {
        guard let waiter = waiters[id] else { return .failure(.cancelled) }
        switch waiter.state {
        case .joined:
            waiters[id]?.state = .waiting(continuation)
            return nil
        case .ended(let result):
            waiters[id] = nil
            return result
        case .leftEarly, .waiting:
            waiters[id] = nil
            return .failure(.cancelled)
        }
    }

    /// Waiter `id` leaves (its caller was cancelled). The job goes on for
    /// the others; when none is left, it is abandoned.
    mutating func leave(_ id: WaiterID) -> LeaveAction {
        guard let waiter = waiters[id], waiter.isPresent, let job = jobs[waiter.job] else { return .none }
        job.listeners.remove(id)
        let continuation: Continuation?
        if case .waiting(let waiting) = waiter.state {
            continuation = waiting
            waiters[id] = nil
            jobs[waiter.job]?.waiters.remove(id)
        } else {
            continuation = nil
            waiters[id]?.state = .leftEarly
        }
        let stillWaiting = job.waiters.contains { $0 != id && waiters[$0]?.isPresent == true }
        guard stillWaiting else {
            remove(waiter.job)
            return .abandoned(continuation, job.task)
        }
        return .left(continuation, recomputePriority(waiter.job))
    }

    /// Changes waiter `id`'s priority; the job follows its waiters' highest.
    mutating func setPriority(_ priority: WorkPriority, for id: WaiterID) -> PriorityChange? {
        guard let waiter = waiters[id], waiter.isPresent else { return nil }
        waiters[id]?.priority = priority
        return recomputePriority(waiter.job)
    }

    /// The job's work waits for a slot as turn `turn`; returns the
    /// priority it waits at (nil once the job has ended).
    mutating func link(_ job: JobID, turn: UInt64) -> WorkPriority? {
        guard jobs[job] != nil else { return nil }
        jobs[job]?.turn = turn
        return jobs[job]?.priority
    }

    /// The job's work waits for another job as its waiter `upstream`;
    /// returns the priority it waits at (nil once the job has ended).
    mutating func link(_ job: JobID, upstream: WaiterID) -> WorkPriority? {
        guard jobs[job] != nil else { return nil }
        jobs[job]?.upstream = upstream
        return jobs[job]?.priority
    }

    func priority(of job: JobID) -> WorkPriority? { jobs[job]?.priority }

    /// Who listens to `job`'s events, read then without the core's lock.
    func listeners(of job: JobID) -> JobListeners? { jobs[job]?.listeners }

    /// The handlers an event of `job` goes to: its present waiters'.
    func eventHandlers(of job: JobID) -> [EventHandler] {
        jobs[job]?.listeners.current ?? []
    }

    /// The job's work ended with `result`. Returns the continuations to
    /// resume with it; waiters that have not begun to wait find it when
    /// they do. Nothing when the job was abandoned.
    mutating func finish(_ job: JobID, with result: Result<Value, DarkroomError>) -> [Continuation] {
        finishServing(job, with: result).continuations
    }

    /// What ending a job did: the continuations to resume, the waiters its
    /// result reaches (those waiting and those yet to wait), and its key.
    struct Ending {
        var continuations: [Continuation] = []
        var served: [WaiterID] = []
        var key: Key?
    }

    /// ``finish(_:with:)``, saying who the result reaches.
    mutating func finishServing(_ job: JobID, with result: Result<Value, DarkroomError>) -> Ending {
        guard let ended = jobs[job] else { return Ending() }
        var ending = Ending(key: ended.key)
        for id in ended.waiters {
            switch waiters[id]?.state {
            case .waiting(let continuation):
                ending.continuations.append(continuation)
                ending.served.append(id)
                waiters[id] = nil
            case .joined:
                ending.served.append(id)
                waiters[id]?.state = .ended(result)
            case .leftEarly, .ended, nil:
                break
            }
        }
        remove(job)
        return ending
    }

    var jobCount: Int { jobs.count }

    /// Forgets a job, so whoever asks for its key next starts afresh.
    /// Its waiters that have not begun to wait keep their entry (left, or
    /// holding the result) until they do.
    private mutating func remove(_ job: JobID) {
        guard let removed = jobs.removeValue(forKey: job) else { return }
        if jobsByKey[removed.key] == job { jobsByKey[removed.key] = nil }
    }

    /// Sets the job's priority to its present waiters' highest.
    private mutating func recomputePriority(_ job: JobID) -> PriorityChange? {
        guard let current = jobs[job] else { return nil }
        let highest = current.waiters.compactMap { id -> WorkPriority? in
            guard let waiter = waiters[id], waiter.isPresent else { return nil }
            return waiter.priority
        }.max()
        guard let highest, highest != current.priority else { return nil }
        jobs[job]?.priority = highest
        return PriorityChange(priority: highest, turn: current.turn, upstream: current.upstream)
    }
}

/// A job's new priority, and the work that follows it: the job's turn, if
/// it waits for a slot, and its waiter in the job it waits for.
struct JobPriorityChange: Sendable, Equatable {
    let priority: WorkPriority
    let turn: UInt64?
    let upstream: UInt64?
}

// What the table's methods return crosses out of the core's lock to be
// done after it: values another thread may take.
extension JobTable.JoinAction: Sendable {}
extension JobTable.LeaveAction: Sendable where Continuation: Sendable {}
extension JobTable.Refusal: Sendable where Continuation: Sendable {}
