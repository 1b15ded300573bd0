import Synchronization

/// Bounds the source bytes that are downloaded but not yet processed.
///
/// A download waits to start while the bytes held are at or over the limit;
/// a processing run holds its source's bytes from the moment they arrive
/// until it ends. So a list of 100,000 rows holds a window of sources, not
/// every source at once. A single source larger than the limit still runs,
/// alone.
final class SourceBytesGate: Sendable {
    private struct State {
        var held = 0
        var waiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter: UInt64 = 0
    }

    let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = limit
    }

    var held: Int { state.withLock { $0.held } }

    /// Returns once the bytes held are under the limit, or the task is cancelled.
    func waitForRoom() async {
        if state.withLock({ $0.held < limit }) { return }
        let id = state.withLock { s in
            s.nextWaiter += 1
            return s.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { s in
                    if s.held < limit || Task.isCancelled { return true }
                    s.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }

    func hold(_ bytes: Int) {
        state.withLock { $0.held += bytes }
    }

    func release(_ bytes: Int) {
        let ready: [CheckedContinuation<Void, Never>] = state.withLock { s in
            s.held = max(0, s.held - bytes)
            guard s.held < limit else { return [] }
            defer { s.waiters.removeAll() }
            return Array(s.waiters.values)
        }
        for continuation in ready { continuation.resume() }
    }
}
