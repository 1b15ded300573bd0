import Synchronization
import DarkroomImaging

/// How a running turn hears of its caller's cancel, from any thread: the
/// ``WorkContext`` a processing run checks between steps, and where it
/// registers the handler that pulls its kill switch in the middle of a
/// libvips call.
final class TurnCancellation: CancellationSource {
    private let cancelled = Atomic<Bool>(false)
    private let handlers = Locked<(next: UInt64, registered: [UInt64: @Sendable () -> Void])>((0, [:]))

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

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
