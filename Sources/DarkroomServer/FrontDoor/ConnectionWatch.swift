import DarkroomImaging
import NIOCore

/// Cancels the work of requests whose connection has closed.
///
/// One close callback per connection, not one per request: a callback per
/// request would keep each request's work, and with it its image, alive
/// until the connection closed, which behind a keep-alive proxy can be
/// thousands of requests later. A request registers while its work runs
/// and removes itself when the work ends.
///
/// The work runs in a task of its own, whose handle may be cancelled from
/// any thread at any time (a close callback runs on the channel's event
/// loop): the request's task waits for it, and passes its own cancellation
/// on. The task inherits the request's priority and task-local values (its
/// trace and logger metadata).
final class ConnectionWatch: Sendable {
    private struct State {
        /// How to cancel each request running, by connection.
        var connections: [ObjectIdentifier: [UInt64: @Sendable () -> Void]] = [:]
        var next: UInt64 = 0
    }

    private let state = Locked(State())

    /// Connections watched now (in /metrics; back to zero when they close).
    var connectionCount: Int { state.withLock { $0.connections.count } }
    /// Requests registered now (in /metrics; back to zero when they end).
    var requestCount: Int { state.withLock { $0.connections.values.reduce(0) { $0 + $1.count } } }

    /// Runs `work`; when `channel` closes first, or the calling task is
    /// cancelled, the work is cancelled.
    func run<T: Sendable, E: Error>(on channel: any Channel, _ work: sending @escaping () async throws(E) -> T) async throws(E) -> T {
        let task = Task { () async -> Result<T, E> in
            do throws(E) {
                return .success(try await work())
            } catch {
                return .failure(error)
            }
        }
        let key = ObjectIdentifier(channel)
        let id = register(channel, key: key) { task.cancel() }
        let result = await withTaskCancellationHandler {
            await task.value
        } onCancel: {
            task.cancel()
        }
        // The connection stays watched (its callback is registered) until it closes.
        state.withLock { _ = $0.connections[key]?.removeValue(forKey: id) }
        return try result.get()
    }

    /// Registers a request's cancel. On a channel that has closed already,
    /// the close callback runs at once and cancels it. (Whether the channel
    /// is active is not asked: a router test's channel never is.)
    private func register(_ channel: any Channel, key: ObjectIdentifier, cancel: @escaping @Sendable () -> Void) -> UInt64 {
        let (id, isNew) = state.withLock { s -> (UInt64, Bool) in
            s.next += 1
            let isNew = s.connections[key] == nil
            s.connections[key, default: [:]][s.next] = cancel
            return (s.next, isNew)
        }
        if isNew {
            // Weak: the callback must not keep the watch (or anything else) alive.
            channel.closeFuture.whenComplete { [weak self] _ in self?.closed(key) }
        }
        return id
    }

    private func closed(_ key: ObjectIdentifier) {
        let cancels = state.withLock { $0.connections.removeValue(forKey: key) } ?? [:]
        for cancel in cancels.values { cancel() }
    }
}
