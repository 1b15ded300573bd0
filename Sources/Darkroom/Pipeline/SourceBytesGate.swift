import Synchronization

/// Bounds the source bytes that are downloaded but not yet processed, so a
/// list of 100,000 rows holds a window of sources, not every source at
/// once. A single source larger than the limit still runs, alone.
///
/// The rules are ``SourceBytesWindow``'s, one part of the pipeline's
/// ``PipelineState``; this class changes it under the ``PipelineCore``'s
/// lock and resumes the waiters it lets in after letting go of it.
final class SourceBytesGate: Sendable {
    private let core: PipelineCore
    private let nextWaiter = Atomic<UInt64>(0)

    init(_ core: PipelineCore) {
        self.core = core
    }

    /// `change` applied to the window, under the core's lock.
    private func withWindow<Result>(_ change: (inout SourceBytesWindow<CheckedContinuation<Void, Never>>) -> sending Result) -> sending Result {
        core.state.withLock { change(&$0.sourceBytes) }
    }

    var held: Int { withWindow { $0.held } }
    var waiters: Int { withWindow { $0.waiters } }

    /// Returns once a download may start, or the task is cancelled. The
    /// caller calls ``downloadEnded(_:)`` with what it returned when its
    /// download ends, whatever its outcome.
    func waitForRoom() async -> UInt64 {
        let id = nextWaiter.wrappingAdd(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if withWindow({ $0.ask(id, continuation: continuation) }) {
                    continuation.resume()
                } else if Task.isCancelled {
                    // Cancelled before the handler could see the waiter.
                    withWindow { $0.cancel(id) }?.resume()
                }
            }
        } onCancel: {
            withWindow { $0.cancel(id) }?.resume()
        }
        return id
    }

    func downloadEnded(_ id: UInt64) {
        for waiter in withWindow({ $0.downloadEnded(id) }) { waiter.resume() }
    }

    /// A processing run holds its source (counted once per key).
    func hold(_ key: String, bytes: Int) {
        withWindow { $0.hold(key, bytes: bytes) }
    }

    func release(_ key: String) {
        for waiter in withWindow({ $0.release(key) }) { waiter.resume() }
    }
}
