import NIOCore
import Synchronization
import DarkroomImaging

/// Cancels the work of requests whose connection has closed.
///
/// One close callback per connection, not one per request: a callback per
/// request would keep each request's task, and with it its image, alive
/// until the connection closed, which behind a keep-alive proxy can be
/// thousands of requests later. A request registers its task while it runs
/// and removes it when it ends.
final class ConnectionWatch: Sendable {
    private struct Connection {
        var tasks: [UInt64: @Sendable () -> Void] = [:]
    }

    private struct State {
        var connections: [ObjectIdentifier: Connection] = [:]
        var next: UInt64 = 0
    }

    private let state = Locked(State())

    /// Connections watched now (in /metrics; back to zero when they close).
    var connectionCount: Int { state.withLock { $0.connections.count } }
    /// Requests registered now (in /metrics; back to zero when they end).
    var requestCount: Int { state.withLock { $0.connections.values.reduce(0) { $0 + $1.tasks.count } } }

    /// Runs `work` in a child task; when `channel` closes first, cancels it.
    func run<T: Sendable, E: Error>(on channel: any Channel, _ work: @escaping @Sendable () async throws(E) -> T) async throws -> T {
        let task = Task { () async throws -> T in try await work() }
        let id = register(channel, cancel: { task.cancel() })
        defer { unregister(channel, id: id) }
        return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
    }

    /// Registers a request's cancel action. On a channel that has closed
    /// already, the close callback runs at once and cancels it. (Whether the
    /// channel is active is not asked: a router test's channel never is.)
    private func register(_ channel: any Channel, cancel: @escaping @Sendable () -> Void) -> UInt64 {
        let key = ObjectIdentifier(channel)
        let (id, isNew) = state.withLock { s -> (UInt64, Bool) in
            s.next += 1
            let isNew = s.connections[key] == nil
            s.connections[key, default: Connection()].tasks[s.next] = cancel
            return (s.next, isNew)
        }
        if isNew {
            // Weak: the callback must not keep the watch (or anything else) alive.
            channel.closeFuture.whenComplete { [weak self] _ in self?.closed(key) }
        }
        return id
    }

    private func unregister(_ channel: any Channel, id: UInt64) {
        let key = ObjectIdentifier(channel)
        state.withLock { s in
            _ = s.connections[key]?.tasks.removeValue(forKey: id)
        }
    }

    private func closed(_ key: ObjectIdentifier) {
        guard let connection = state.withLock({ $0.connections.removeValue(forKey: key) }) else { return }
        for cancel in connection.tasks.values { cancel() }
    }
}
