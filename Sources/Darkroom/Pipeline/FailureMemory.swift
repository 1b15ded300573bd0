import Foundation
import Synchronization

/// URLs that failed recently: for a while they fail at once with the
/// same error, without a request; after that they are tried again.
/// Never forever, and never not at all.
final class FailureMemory: Sendable {
    private let duration: Duration
    private let failures = Mutex<[URL: (error: DarkroomError, until: ContinuousClock.Instant)]>([:])

    init(duration: Duration) {
        self.duration = duration
    }

    /// Remembers a failure, for the configured time or until `until`.
    func remember(_ error: DarkroomError, for url: URL, until: ContinuousClock.Instant? = nil) {
        guard duration > .zero else { return }
        let now = ContinuousClock.now
        failures.withLock { f in
            if f.count > 10_000 { f = f.filter { $0.value.until > now } }
            f[url] = (error, until ?? now + duration)
        }
    }

    var isEnabled: Bool { duration > .zero }

    /// How long a new failure is remembered.
    var span: Duration { duration }

    /// The error `url` failed with, while it is remembered.
    func recentFailure(for url: URL) -> DarkroomError? {
        let now = ContinuousClock.now
        return failures.withLock { f in
            guard let failure = f[url] else { return nil }
            guard failure.until > now else {
                f[url] = nil
                return nil
            }
            let retry = Int((failure.until - now).seconds.rounded(.up))
            let e = failure.error
            return DarkroomError(e.kind, "\(e.reason) (failed recently; it will be tried again in \(retry) s)",
                                 underlying: e.underlying, statusCode: e.statusCode)
        }
    }
}
