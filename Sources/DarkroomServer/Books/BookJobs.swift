import Darkroom
import Foundation
import Synchronization
import DarkroomImaging

/// Photobook jobs made through the API: each has an id, a state, its
/// progress, and when done, its PDF. Finished books are removed after a
/// while, and sooner, oldest first, when their PDFs together pass
/// ``maxFinishedBytes``.
final class BookJobs: Sendable {
    let folder: URL
    let lifetime: Duration
    /// Books not yet ended, in all and from one client address: each is
    /// hundreds of downloads and page renders.
    let maxUnfinished: Int
    let maxUnfinishedPerClient: Int
    /// The finished PDFs kept on disk, in bytes: default 256 MiB (a
    /// 500-page book is about 70 MB).
    let maxFinishedBytes: Int
    private let jobs = Locked<[String: BookJob]>([:])

    init(folder: URL, lifetime: Duration, maxUnfinished: Int = 8, maxUnfinishedPerClient: Int = 2, maxFinishedBytes: Int = 256 << 20) {
        self.folder = folder
        self.lifetime = lifetime
        self.maxUnfinished = maxUnfinished
        self.maxUnfinishedPerClient = maxUnfinishedPerClient
        self.maxFinishedBytes = maxFinishedBytes
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    enum Refusal: Error, Equatable {
        case tooManyInAll(Int)
        case tooManyFromClient(Int)

        var message: String {
            switch self {
            case .tooManyInAll(let limit): "\(limit) photobooks are being made; try again when one has ended"
            case .tooManyFromClient(let limit): "you have \(limit) photobooks being made; try again when one has ended"
            }
        }
    }

    /// Starts a book for `client` (its address), unless the bounds on
    /// unfinished books are reached.
    func start(_ request: PhotobookRequest, client: String, pipeline: ImagePipeline) throws(Refusal) -> BookJob {
        let id = UUID().uuidString.lowercased()
        // The count and the insertion under one lock, so that a burst of
        // requests cannot all pass the check.
        let job: BookJob = try jobs.withLock { jobs throws(Refusal) in
            let unfinished = jobs.values.filter { $0.endedAt == nil }
            guard unfinished.count < maxUnfinished else { throw .tooManyInAll(maxUnfinished) }
            guard unfinished.count(where: { $0.client == client }) < maxUnfinishedPerClient else {
                throw .tooManyFromClient(maxUnfinishedPerClient)
            }
            let job = BookJob(id: id, client: client, total: request.photos.count,
                              job: Photobook(pipeline: pipeline).start(request, to: folder.appendingPathComponent("\(id).pdf").path))
            jobs[id] = job
            return job
        }
        job.follow()
        return job
    }

    func job(_ id: String) -> BookJob? { jobs.withLock { $0[id] } }

    /// Removes books that ended more than ``lifetime`` ago, with their
    /// files; then the oldest finished ones while their PDFs pass
    /// ``maxFinishedBytes``.
    func sweep() {
        // Chosen from a copy, each job's state read outside the table's
        // lock; then removed by id.
        let all = jobs.withLock { Array($0.values) }
        var old = all.filter { ($0.endedAt.map { .now - $0 > lifetime }) ?? false }
        let finished = all.filter { job in !old.contains { $0 === job } }
            .compactMap { job in job.endedAt.map { (job, $0, job.current.bytes ?? 0) } }
            .sorted { $0.1 < $1.1 }
        var total = finished.reduce(0) { $0 + $1.2 }
        for (job, _, bytes) in finished where total > maxFinishedBytes {
            old.append(job)
            total -= bytes
        }
        guard !old.isEmpty else { return }
        let expired = jobs.withLock { jobs in old.filter { jobs.removeValue(forKey: $0.id) != nil } }
        for job in expired { job.removeFile() }
    }

    /// The finished PDFs' bytes on disk now.
    var finishedBytes: Int {
        jobs.withLock { Array($0.values) }.reduce(0) { $0 + ($1.endedAt == nil ? 0 : $1.current.bytes ?? 0) }
    }
}

/// One photobook job: its progress as the API reports it.
final class BookJob: Sendable {
    let id: String
    /// The address of the client that asked for it.
    let client: String
    let job: PhotobookJob
    private let status: Locked<BookStatus>
    private let subscribers = Locked<[UUID: AsyncStream<BookStatus>.Continuation]>([:])
    private let ended = Locked<ContinuousClock.Instant?>(nil)

    init(id: String, client: String, total: Int, job: PhotobookJob) {
        self.id = id
        self.client = client
        self.job = job
        status = Locked(BookStatus(id: id, state: .preparing, prepared: 0, written: 0, total: total))
    }

    /// Starts following the job's progress.
    func follow() {
        Task { await self.followProgress() }
    }

    var current: BookStatus { status.withLock { $0 } }
    var endedAt: ContinuousClock.Instant? { ended.withLock { $0 } }
    var pdfPath: String? { current.state == .done ? current.path : nil }

    func cancel() { job.cancel() }

    func removeFile() {
        if let path = current.path { try? FileManager.default.removeItem(atPath: path) }
    }

    /// Each status change, from now until the job ends.
    func updates() -> AsyncStream<BookStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: BookStatus.self, bufferingPolicy: .bufferingNewest(16))
        let key = UUID()
        let snapshot = status.withLock { s in
            subscribers.withLock { $0[key] = continuation }
            return s
        }
        continuation.yield(snapshot)
        if snapshot.isFinal { continuation.finish() }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.removeValue(forKey: key) } }
        return stream
    }

    private func followProgress() async {
        for await step in job.progress {
            update { s in
                switch step {
                case .preparing(let done, _): s.prepared = done
                case .writing(let written, _): s.written = written; s.state = .writing
                case .done: break
                }
            }
        }
        do {
            let result = try await job.result
            update { s in
                s.state = .done
                s.path = result.path
                s.bytes = result.bytes
                s.skipped = result.skipped.map { "\($0.name): \($0.reason)" }
            }
        } catch {
            update { s in
                s.state = error.kind == .cancelled ? .cancelled : .failed
                s.error = error.kind == .cancelled ? nil : error.description
            }
        }
        ended.withLock { $0 = .now }
    }

    private func update(_ change: (inout BookStatus) -> Void) {
        let (snapshot, listeners) = status.withLock { s in
            change(&s)
            return (s, subscribers.withLock { Array($0.values) })
        }
        for listener in listeners {
            listener.yield(snapshot)
            if snapshot.isFinal { listener.finish() }
        }
    }
}

/// What `GET /api/books/{id}` answers.
struct BookStatus: Codable, Sendable {
    var id: String
    var state: State
    var prepared: Int
    var written: Int
    var total: Int
    var bytes: Int?
    var skipped: [String]?
    var error: String?
    /// The file on the server; not sent.
    var path: String?

    enum State: String, Codable, Sendable {
        case preparing, writing, done, failed, cancelled
    }

    var isFinal: Bool { [.done, .failed, .cancelled].contains(state) }

    enum CodingKeys: String, CodingKey { case id, state, prepared, written, total, bytes, skipped, error }
}
