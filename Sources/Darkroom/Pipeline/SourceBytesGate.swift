import Synchronization
import DarkroomImaging

/// Bounds the source bytes that are downloaded but not yet processed, so a
/// list of 100,000 rows holds a window of sources, not every source at
/// once. A single source larger than the limit still runs, alone.
///
/// The rules are ``SourceBytesWindow``'s; this class holds one behind a
/// lock and resumes the waiters it lets in after letting go of it.
final class SourceBytesGate: Sendable {
    private let window: Locked<SourceBytesWindow<CheckedContinuation<Void, Never>>>
    private let nextWaiter = Atomic<UInt64>(0)

    init(limit: Int) {
        window = Locked(SourceBytesWindow(limit: limit))
    }

    var held: Int { window.withLock { $0.held } }
    var waiters: Int { window.withLock { $0.waiters } }

    /// Returns once a download may start, or the task is cancelled. The
    /// caller calls ``downloadEnded()`` when its download ends, whatever
    /// its outcome.
    func waitForRoom() async {
        let id = nextWaiter.wrappingAdd(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if window.withLock({ $0.ask(id, continuation: continuation) }) {
                    continuation.resume()
                } else if Task.isCancelled {
                    // Cancelled before the handler could see the waiter.
                    window.withLock { $0.cancel(id) }?.resume()
                }
            }
        } onCancel: {
            window.withLock { $0.cancel(id) }?.resume()
        }
    }

    func downloadEnded() {
        for waiter in window.withLock({ $0.downloadEnded() }) { waiter.resume() }
    }

    /// A processing run holds its source (counted once per key).
    func hold(_ key: String, bytes: Int) {
        window.withLock { $0.hold(key, bytes: bytes) }
    }

    func release(_ key: String) {
        for waiter in window.withLock({ $0.release(key) }) { waiter.resume() }
    }
}
