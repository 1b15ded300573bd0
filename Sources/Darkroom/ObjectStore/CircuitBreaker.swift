import Synchronization
import DarkroomImaging

/// Stops calling a store that keeps failing, and tries it again later.
///
/// Closed: every call goes through. After `threshold` failures in a row it
/// opens: calls are skipped (the caller goes on without the store) for
/// `cooldown`. Then one call is let through as a trial: success closes the
/// breaker, failure opens it for another cooldown.
public final class CircuitBreaker: Sendable {
    public enum State: Sendable, Equatable {
        case closed
        case open(reason: String)
    }

    private struct Box {
        var failures = 0
        var openUntil: ContinuousClock.Instant?
        var trialRunning = false
        var lastFailure: String?
    }

    public let threshold: Int
    public let cooldown: Duration
    private let box = Locked(Box())

    public init(threshold: Int = 5, cooldown: Duration = .seconds(10)) {
        self.threshold = max(1, threshold)
        self.cooldown = cooldown
    }

    /// Whether a call may go now. When it returns true, report the call's
    /// end with ``succeeded()`` or ``failed(_:now:)``.
    public func allow(now: ContinuousClock.Instant = .now) -> Bool {
        box.withLock { box in
            guard let until = box.openUntil else { return true }
            guard now >= until, !box.trialRunning else { return false }
            box.trialRunning = true
            return true
        }
    }

    public func succeeded() {
        box.withLock { box in
            box = Box()
        }
    }

    public func failed(_ reason: String, now: ContinuousClock.Instant = .now) {
        box.withLock { box in
            box.failures += 1
            box.lastFailure = reason
            if box.trialRunning || box.failures >= threshold {
                box.openUntil = now + cooldown
                box.trialRunning = false
            }
        }
    }

    /// Opens at once, whatever the count: a store known to be down.
    public func trip(_ reason: String, now: ContinuousClock.Instant = .now) {
        box.withLock { box in
            box.failures = max(box.failures, threshold)
            box.lastFailure = reason
            box.openUntil = now + cooldown
            box.trialRunning = false
        }
    }

    public var state: State {
        box.withLock { box in
            box.openUntil == nil ? .closed : .open(reason: box.lastFailure ?? "failing")
        }
    }
}
