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
        core.withState { change(&$0.sourceBytes) }
    }

    var held: Int { withWindow { $0.held } }
    var waiters: Int { withWindow { $0.waiters } }

    /// Returns once data job `job`'s download may start, or the task is
    /// cancelled. Its room ends when the job does, as the source's bytes
    /// are held for the runs waiting on it (``PipelineState/finishSource(_:with:)``).
    func waitForRoom(for job: UInt64) async {
        let id = nextWaiter.wrappingAdd(1, ordering: .relaxed).newValue
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                if core.withState({ $0.askRoom(id, for: job, continuation: continuation) }) {
                    continuation.resume()
                } else if Task.isCancelled {
                    // Cancelled before the handler could see the waiter.
                    withWindow { $0.cancel(id) }?.resume()
                }
            }
        } onCancel: {
            withWindow { $0.cancel(id) }?.resume()
        }
    }

    /// Process job `job`'s run of bytes given in memory holds them until
    /// the job ends (a downloaded source's are held for its runs as it
    /// arrives).
    func hold(_ key: String, bytes: Int, for job: UInt64) {
        core.withState { $0.holdSource(key, bytes: bytes, for: job) }
    }
}
