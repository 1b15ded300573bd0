import Synchronization
import DarkroomImaging

/// How a queued item's work hears of a cancel, from any thread: the flag a
/// ``WorkContext`` checks between steps, and the handlers it registers to
/// stop a call in the middle. Pulled by the cancellation of the item's
/// task (blocking work runs on another thread, where the task cannot be
/// asked), or by ``WorkItem/cancel()`` while the item waits.
final class CancellationFlag: CancellationSource {
    private let cancelled = Atomic<Bool>(false)
    private let handlers = Locked<(next: UInt64, registered: [UInt64: @Sendable () -> Void])>((0, [:]))

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// Sets the flag and calls the handlers registered; later calls do nothing.
    func cancel() {
        // Set before the lock: a handler added after this sees it and runs
        // at once; one added before is taken here, and called after it.
        cancelled.store(true, ordering: .releasing)
        let taken = handlers.withLock { h in
            defer { h.registered = [:] }
            return Array(h.registered.values)
        }
        for handler in taken { handler() }
    }

    func addCancellationHandler(_ handler: @escaping @Sendable () -> Void) -> UInt64? {
        handlers.withLock { h in
            if cancelled.load(ordering: .acquiring) { return nil }
            h.next += 1
            h.registered[h.next] = handler
            return h.next
        }
    }

    func removeCancellationHandler(_ id: UInt64) {
        _ = handlers.withLock { $0.registered.removeValue(forKey: id) }
    }
}
