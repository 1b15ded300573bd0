import DarkroomImaging
import NIOCore

/// Cancels the work of requests whose connection has closed.
///
/// One close callback per connection, not one per request: a callback per
/// request would keep each request's task, and with it its image, alive
/// until the connection closed, which behind a keep-alive proxy can be
/// thousands of requests later. A request registers while its work runs
/// and removes itself when the work ends.
///
/// The work runs in the request's own task, not one made for it: the watch
/// holds a handle to that task (an `UnsafeCurrentTask`) and the close
/// cancels it. Such a handle may be used only while its task runs, so the
/// cancel is made outside the lock with the request marked as being
/// cancelled, and a request whose work ends meanwhile waits for the cancel
/// to be done before it returns.
final class ConnectionWatch: Sendable {
    /// The request's task, while its work runs.
    private struct TaskHandle: @unchecked Sendable {
        let task: UnsafeCurrentTask
    }

    private struct State {
        /// Requests running, by connection.
        var connections: [ObjectIdentifier: [UInt64: TaskHandle]] = [:]
        /// Requests a close is cancelling now; the continuation of one whose
        /// work ended meanwhile, to resume once the cancel is made.
        var cancelling: [UInt64: CheckedContinuation<Void, Never>?] = [:]
        var next: UInt64 = 0
    }

    private let state = Locked(State())

    /// Connections watched now (in /metrics; back to zero when they close).
    var connectionCount: Int { state.withLock { $0.connections.count } }
    /// Requests registered now (in /metrics; back to zero when they end).
    var requestCount: Int { state.withLock { $0.connections.values.reduce($0.cancelling.count) { $0 + $1.count } } }

    /// Runs `work` in the calling task; when `channel` closes first, that
    /// task is cancelled.
    func run<T, E: Error>(on channel: any Channel, _ work: () async throws(E) -> T) async throws(E) -> T {
        let key = ObjectIdentifier(channel)
        let id = withUnsafeCurrentTask { task in task.map { register(channel, key: key, TaskHandle(task: $0)) } }
        let result: Result<T, E>
        do throws(E) {
            result = .success(try await work())
        } catch {
            result = .failure(error)
        }
        if let id { await unregister(key, id: id) }
        return try result.get()
    }

    /// Registers a request's task. On a channel that has closed already,
    /// the close callback runs at once and cancels it. (Whether the channel
    /// is active is not asked: a router test's channel never is.)
    private func register(_ channel: any Channel, key: ObjectIdentifier, _ handle: TaskHandle) -> UInt64 {
        let (id, isNew) = state.withLock { s -> (UInt64, Bool) in
            s.next += 1
            let isNew = s.connections[key] == nil
            s.connections[key, default: [:]][s.next] = handle
            return (s.next, isNew)
        }
        if isNew {
            // Weak: the callback must not keep the watch (or anything else) alive.
            channel.closeFuture.whenComplete { [weak self] _ in self?.closed(key) }
        }
        return id
    }

    /// The request's work ended: it leaves the watch, after the cancel a
    /// close is making of its task, if any.
    private func unregister(_ key: ObjectIdentifier, id: UInt64) async {
        let removed = state.withLock { s in s.connections[key]?.removeValue(forKey: id) != nil || s.cancelling[id] == nil }
        if removed { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { s in
                guard s.cancelling[id] != nil else { return true }
                s.cancelling[id] = continuation
                return false
            }
            if done { continuation.resume() }
        }
    }

    private func closed(_ key: ObjectIdentifier) {
        let requests: [UInt64: TaskHandle] = state.withLock { s in
            guard let requests = s.connections.removeValue(forKey: key) else { return [:] }
            for id in requests.keys { s.cancelling[id] = .some(nil) }
            return requests
        }
        guard !requests.isEmpty else { return }
        for handle in requests.values { handle.task.cancel() }
        let ended: [CheckedContinuation<Void, Never>] = state.withLock { s in
            requests.keys.compactMap { id in s.cancelling.removeValue(forKey: id) ?? nil }
        }
        for continuation in ended { continuation.resume() }
    }
}
