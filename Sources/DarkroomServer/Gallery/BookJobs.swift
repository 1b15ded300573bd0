import Darkroom
import Foundation
import Synchronization

/// Photobook jobs made through the API: each has an id, a state, its
/// progress, and when done, its PDF. Finished books are removed after a while.
final class BookJobs: Sendable {
    let folder: URL
    let lifetime: Duration
    private let jobs = Mutex<[String: BookJob]>([:])

    init(folder: URL, lifetime: Duration) {
        self.folder = folder
        self.lifetime = lifetime
        try? FileManager.default.removeItem(at: folder)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func start(_ request: PhotobookRequest, pipeline: ImagePipeline) -> BookJob {
        let id = UUID().uuidString.lowercased()
        let job = BookJob(id: id, total: request.photos.count,
                          job: Photobook(pipeline: pipeline).start(request, to: folder.appendingPathComponent("\(id).pdf").path))
        jobs.withLock { $0[id] = job }
        return job
    }

    func job(_ id: String) -> BookJob? { jobs.withLock { $0[id] } }

    /// Removes books that ended more than ``lifetime`` ago, with their files.
    func sweep() {
        let expired = jobs.withLock { jobs in
            let old = jobs.values.filter { ($0.endedAt.map { .now - $0 > lifetime }) ?? false }
            for job in old { jobs[job.id] = nil }
            return old
        }
        for job in expired { job.removeFile() }
    }
}

/// One photobook job: its progress as the API reports it.
final class BookJob: Sendable {
    let id: String
    let job: PhotobookJob
    private let status: Mutex<BookStatus>
    private let subscribers = Mutex<[UUID: AsyncStream<BookStatus>.Continuation]>([:])
    private let ended = Mutex<ContinuousClock.Instant?>(nil)

    init(id: String, total: Int, job: PhotobookJob) {
        self.id = id
        self.job = job
        status = Mutex(BookStatus(id: id, state: "preparing", prepared: 0, written: 0, total: total))
        Task { await self.follow() }
    }

    var current: BookStatus { status.withLock { $0 } }
    var endedAt: ContinuousClock.Instant? { ended.withLock { $0 } }
    var pdfPath: String? { current.state == "done" ? current.path : nil }

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

    private func follow() async {
        for await step in job.progress {
            update { s in
                switch step {
                case .preparing(let done, _): s.prepared = done
                case .writing(let written, _): s.written = written; s.state = "writing"
                case .done: break
                }
            }
        }
        do {
            let result = try await job.result
            update { s in
                s.state = "done"
                s.path = result.path
                s.bytes = result.bytes
                s.skipped = result.skipped.map { "\($0.name): \($0.reason)" }
            }
        } catch {
            update { s in
                s.state = error.kind == .cancelled ? "cancelled" : "failed"
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
    /// preparing, writing, done, failed or cancelled.
    var state: String
    var prepared: Int
    var written: Int
    var total: Int
    var bytes: Int?
    var skipped: [String]?
    var error: String?
    /// The file on the server; not sent.
    var path: String?

    var isFinal: Bool { ["done", "failed", "cancelled"].contains(state) }

    enum CodingKeys: String, CodingKey { case id, state, prepared, written, total, bytes, skipped, error }
}
