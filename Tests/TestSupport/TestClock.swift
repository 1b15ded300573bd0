import Synchronization

/// A clock a test moves by hand, for code that takes `now` from outside:
/// what it checks then depends on the steps it takes, not on how fast the
/// machine runs it.
public final class TestClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)

    public init() {}

    public var now: ContinuousClock.Instant { instant.withLock { $0 } }

    public func advance(by duration: Duration) {
        instant.withLock { $0 += duration }
    }
}
