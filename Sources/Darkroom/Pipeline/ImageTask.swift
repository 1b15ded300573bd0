import Synchronization
import DarkroomImaging

/// One request in flight: its events, its result, and controls to change
/// its priority or cancel it.
///
/// Cancelling makes this request leave its work; the work goes on for other
/// requests that share it, and stops when none is left.
public final class ImageTask: Sendable {
    public let request: ImageRequest
    private let waiterID: UInt64
    private let control = Locked<Control>(Control())

    private struct Control {
        var priority: WorkPriority?
        /// The shared work this request has joined, once it has.
        var jobs: JobRegistry<ImageResponse>?
        var task: Task<ImageResponse, any Error>?
        /// Each reader's stream of ``events``, by number.
        var readers: [Int: AsyncStream<ImageTaskEvent>.Continuation] = [:]
        var nextReader = 0
        /// What a reader who comes late is given first: the latest
        /// progress, then the original or, once known, the outcome.
        var progress: ImageTaskEvent?
        var told: [ImageTaskEvent] = []
        var ended = false
    }

    private init(request: ImageRequest, waiterID: UInt64) {
        self.request = request
        self.waiterID = waiterID
    }

    static func start(_ request: ImageRequest, in pipeline: ImagePipeline) -> ImageTask {
        let imageTask = ImageTask(request: request, waiterID: pipeline.makeWaiterID())
        let task = Task { () async throws -> ImageResponse in
            do throws(DarkroomError) {
                let response = try await pipeline.image(
                    for: request, waiter: imageTask.waiterID,
                    onEvent: { event in
                        switch event {
                        case .progress(let received, let expected): imageTask.tell(.progress(received: received, expected: expected))
                        case .original(let source): imageTask.tell(.original(source))
                        }
                    },
                    joined: { imageTask.joined(pipeline.processJobs) }
                )
                imageTask.tell(.finished(response))
                return response
            } catch {
                imageTask.tell(.failed(error))
                throw error
            }
        }
        imageTask.control.withLock { $0.task = task }
        return imageTask
    }

    /// Progress, the original, then the result or the failure, in order:
    /// a stream of its own for each reader, which ends after the last
    /// event. A reader who starts late is given the latest progress, the
    /// original while the result is being made, and the outcome once it is
    /// known, so none misses the outcome.
    public var events: AsyncStream<ImageTaskEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ImageTaskEvent.self)
        let (past, ended, reader) = control.withLock { c in
            let reader = c.nextReader
            c.nextReader += 1
            if !c.ended { c.readers[reader] = continuation }
            return ((c.progress.map { [$0] } ?? []) + c.told, c.ended, reader)
        }
        for event in past { continuation.yield(event) }
        if ended {
            continuation.finish()
        } else {
            // A reader who stops reading is forgotten.
            continuation.onTermination = { [weak self] _ in _ = self?.control.withLock { $0.readers.removeValue(forKey: reader) } }
        }
        return stream
    }

    /// Gives `event` to every reader; the outcome ends their streams.
    private func tell(_ event: ImageTaskEvent) {
        let final: Bool
        switch event {
        case .finished, .failed: final = true
        case .progress, .original: final = false
        }
        let readers = control.withLock { c in
            // Once the outcome is known, the original's bytes are let go.
            if case .progress = event { c.progress = event } else if final { c.told = [event] } else { c.told.append(event) }
            c.ended = final
            let readers = Array(c.readers.values)
            if final { c.readers = [:] }
            return readers
        }
        for reader in readers {
            reader.yield(event)
            if final { reader.finish() }
        }
    }

    /// A priority set before the request joined its work applies now.
    private func joined(_ jobs: JobRegistry<ImageResponse>) {
        let priority = control.withLock { c in
            c.jobs = jobs
            return c.priority
        }
        if let priority { jobs.setPriority(priority, for: waiterID) }
    }

    /// The result. Cancelling the task that awaits it cancels this
    /// request, as ``cancel()`` does.
    public var response: ImageResponse {
        get async throws(DarkroomError) {
            guard let task = control.withLock({ $0.task }) else { throw .cancelled }
            do {
                return try await withTaskCancellationHandler {
                    try await task.value
                } onCancel: {
                    task.cancel()
                }
            } catch {
                throw error as? DarkroomError ?? .cancelled
            }
        }
    }

    /// Changes this request's priority; shared work follows the highest of
    /// its requests'.
    public func setPriority(_ priority: WorkPriority) {
        let jobs = control.withLock { c in
            c.priority = priority
            return c.jobs
        }
        jobs?.setPriority(priority, for: waiterID)
    }

    public func cancel() {
        control.withLock { $0.task }?.cancel()
    }
}
