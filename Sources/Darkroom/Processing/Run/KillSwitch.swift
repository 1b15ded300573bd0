import DarkroomImaging
import Synchronization

/// Stops one processing run from another thread: checked between steps, and
/// pulled into libvips while it computes pixels.
package final class KillSwitch: Sendable {
    let vips = VipsKillSwitch()
    private let expired = Atomic<Bool>(false)

    package init() {}

    package func pull() { vips.pull() }

    /// Pulls the switch because the run's time is up, so that the run can
    /// tell a deadline from a caller that went away.
    func expire() {
        expired.store(true, ordering: .releasing)
        vips.pull()
    }

    var hasExpired: Bool { expired.load(ordering: .acquiring) }

    package var isPulled: Bool { vips.isPulled }

    /// Throws ``DarkroomError/Kind/cancelled`` once the switch is pulled.
    func check() throws(DarkroomError) {
        if isPulled { throw .cancelled }
    }
}

extension BlockingExecutor {
    /// Runs `work` on one of the executor's threads with a kill switch of
    /// its own, which the calling task's cancellation pulls: a libvips
    /// computation stops in the middle. What it throws is the work's own
    /// error, or the pool's (when it has shut down).
    func runStoppable<T: Sendable>(_ work: @escaping @Sendable (KillSwitch) throws(DarkroomError) -> T) async throws -> T {
        let killSwitch = KillSwitch()
        return try await withTaskCancellationHandler {
            try await run { () throws(DarkroomError) in try work(killSwitch) }
        } onCancel: {
            killSwitch.pull()
        }
    }
}
