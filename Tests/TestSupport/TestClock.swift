public import Foundation
import Synchronization
import DarkroomImaging

/// A clock a test moves by hand, for code that takes `now` from outside:
/// what it checks then depends on the steps it takes, not on how fast the
/// machine runs it.
public final class TestClock: Sendable {
    private let state = Locked((instant: ContinuousClock.now, date: Date()))

    public init() {}

    public var now: ContinuousClock.Instant { state.withLock { $0.instant } }

    /// The same time as a wall-clock date, for code that keeps dates.
    public var date: Date { state.withLock { $0.date } }

    public func advance(by duration: Duration) {
        state.withLock {
            $0.instant += duration
            $0.date += duration.seconds
        }
    }
}
