import Synchronization

/// One request in flight: its events, its result, and controls to change
/// its priority or cancel it.
///
/// Cancelling makes this request leave its work; the work goes on for other
/// requests that share it, and stops when none is left.
public final class ImageTask: Sendable {
    public let request: ImageRequest
    /// Progress, the original, then the result or the failure, in order.
    /// The stream ends after the last event.
    public let events: AsyncStream<ImageTaskEvent>
    private let waiterID: UInt64
    private let control = Mutex<Control>(Control())

    private struct Control {
        var priority: WorkPriority?
        /// The shared work this request has joined, once it has.
        var jobs: JobRegistry<String, ImageResponse>?
        var task: Task<ImageResponse, any Error>?
    }

    private init(request: ImageRequest, waiterID: UInt64, events: AsyncStream<ImageTaskEvent>) {
        self.request = request
        self.waiterID = waiterID
        self.events = events
    }

    static func start(_ request: ImageRequest, in pipeline: ImagePipeline) -> ImageTask {
        let (events, continuation) = AsyncStream.makeStream(of: ImageTaskEvent.self)
        let imageTask = ImageTask(request: request, waiterID: pipeline.makeWaiterID(), events: events)
        let task = Task { () async throws -> ImageResponse in
            do throws(DarkroomError) {
                let response = try await pipeline.image(
                    for: request, waiter: imageTask.waiterID,
                    onEvent: { event in
                        switch event {
                        case .progress(let received, let expected): continuation.yield(.progress(received: received, expected: expected))
                        case .original(let source): continuation.yield(.original(source))
                        }
                    },
                    joined: { imageTask.joined(pipeline.processJobs) }
                )
                continuation.yield(.finished(response))
                continuation.finish()
                return response
            } catch {
                continuation.yield(.failed(error))
                continuation.finish()
                throw error
            }
        }
        imageTask.control.withLock { $0.task = task }
        return imageTask
    }

    /// A priority set before the request joined its work applies now.
    private func joined(_ jobs: JobRegistry<String, ImageResponse>) {
        let priority = control.withLock { c in
            c.jobs = jobs
            return c.priority
        }
        if let priority { jobs.setPriority(priority, for: waiterID) }
    }

    /// The result.
    public var response: ImageResponse {
        get async throws(DarkroomError) {
            guard let task = control.withLock({ $0.task }) else { throw .cancelled }
            do {
                return try await task.value
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
