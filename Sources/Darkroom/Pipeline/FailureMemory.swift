import Foundation
import Synchronization

/// URLs that failed recently: for a while they fail at once with the
/// same error, without a request; after that they are tried again.
/// Never forever, and never not at all.
///
/// Times are wall-clock dates, as the copies kept on disk for the next
/// process are; a date further ahead than the memory's span (the clock
/// stepped back) counts as expired.
final class FailureMemory: Sendable {
    private let duration: Duration
    /// What time it is: the system's, or a test's own clock.
    let now: @Sendable () -> Date
    private let failures = Mutex<[URL: (error: DarkroomError, until: Date)]>([:])

    init(duration: Duration, now: @escaping @Sendable () -> Date = { Date() }) {
        self.duration = duration
        self.now = now
    }

    /// Remembers a failure, for the configured time or until `until`.
    func remember(_ error: DarkroomError, for url: URL, until: Date? = nil) {
        guard duration > .zero else { return }
        let now = now()
        // A date from another process's longer memory is held to this one's.
        let until = min(until ?? .distantFuture, now.addingTimeInterval(duration.seconds))
        failures.withLock { f in
            if f.count > 10_000 { f = f.filter { $0.value.until > now } }
            f[url] = (error, until)
        }
    }

    var isEnabled: Bool { duration > .zero }

    /// How long a new failure is remembered.
    var span: Duration { duration }

    /// Whether a failure remembered until `until`, for `span` seconds
    /// (another process's span, kept with it; this memory's when nil),
    /// still holds now.
    func holds(until: Date, span: Double? = nil) -> Bool {
        let remaining = until.timeIntervalSince(now())
        return remaining > 0 && remaining <= (span ?? duration.seconds)
    }

    /// The error `url` failed with, while it is remembered.
    func recentFailure(for url: URL) -> DarkroomError? {
        let now = now()
        return failures.withLock { f in
            guard let failure = f[url] else { return nil }
            let remaining = failure.until.timeIntervalSince(now)
            guard remaining > 0, remaining <= duration.seconds else {
                f[url] = nil
                return nil
            }
            let retry = Int(remaining.rounded(.up))
            let e = failure.error
            return DarkroomError(e.kind, "\(e.reason) (failed recently; it will be tried again in \(retry) s)",
                                 underlying: e.underlying, statusCode: e.statusCode)
        }
    }
}
