import Synchronization
import DarkroomImaging

/// Who listens to one job's events (progress, the original's arrival): the
/// handlers of its waiters that asked for them, kept beside the core, not
/// in it, so an event reaches them without taking the core's lock, and
/// costs one atomic read when nobody listens (a download's progress,
/// chunk by chunk, for a request that only wants the image).
///
/// The core adds and removes a waiter's handler as the waiter joins and
/// leaves, under its lock; the job's work publishes from its own task.
final class JobListeners: Sendable {
    typealias Handler = @Sendable (PipelineEvent) -> Void

    private let count = Atomic<Int>(0)
    private let handlers = Locked<[UInt64: Handler]>([:])

    func add(_ waiter: UInt64, _ handler: @escaping Handler) {
        let added = handlers.withLock { h in h.updateValue(handler, forKey: waiter) == nil }
        if added { count.add(1, ordering: .releasing) }
    }

    func remove(_ waiter: UInt64) {
        let removed = handlers.withLock { h in h.removeValue(forKey: waiter) != nil }
        if removed { count.subtract(1, ordering: .releasing) }
    }

    /// The handlers now, in no particular order.
    var current: [Handler] {
        guard count.load(ordering: .acquiring) > 0 else { return [] }
        return handlers.withLock { Array($0.values) }
    }

    func publish(_ event: PipelineEvent) {
        for handler in current { handler(event) }
    }
}
