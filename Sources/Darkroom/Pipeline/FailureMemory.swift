import Crypto
import Foundation
import Synchronization
import DarkroomImaging

/// URLs that failed recently: for a while they fail at once with the
/// same error, without a request; after that they are tried again.
/// Never forever, and never not at all.
///
/// Bounded by bytes, not by entries: each URL is kept as its SHA-256 and
/// each error's text at most ``longestText`` long, and past ``maxBytes``
/// the oldest failures are forgotten first. So strangers asking for
/// thousands of long URLs that fail (a refused address, a 404) move
/// memory by at most that much.
///
/// Times are wall-clock dates, as the copies kept on disk for the next
/// process are; a date further ahead than the memory's span (the clock
/// stepped back) counts as expired.
final class FailureMemory: Sendable {
    private struct Failure {
        var error: DarkroomError
        var until: Date
        var cost: Int
        var stamp: UInt64
    }

    private struct State {
        var failures: [Data: Failure] = [:]
        /// Keys in the order they were remembered, with the stamp each had;
        /// a key remembered again has a newer stamp, and its old place is
        /// skipped when it comes up.
        var order: [(key: Data, stamp: UInt64)] = []
        var head = 0
        var bytes = 0
        var stamp: UInt64 = 0
    }

    private let duration: Duration
    /// The most the memory holds, counted as ``remember(_:for:until:)``
    /// counts it. Default 4 MiB: about 10,000 failures with their reasons.
    let maxBytes: Int
    /// What time it is: the system's, or a test's own clock.
    let now: @Sendable () -> Date
    private let state = Locked(State())

    /// The longest reason or detail kept with a failure; a reason that
    /// quotes a long URL is cut there.
    static let longestText = 1024

    init(duration: Duration, maxBytes: Int = 4 << 20, now: @escaping @Sendable () -> Date = { Date() }) {
        self.duration = duration
        self.maxBytes = maxBytes
        self.now = now
    }

    /// What the memory holds now (in /metrics).
    var bytes: Int { state.withLock { $0.bytes } }
    var count: Int { state.withLock { $0.failures.count } }

    static func key(_ url: URL) -> Data { Data(SHA256.hash(data: Data(url.absoluteString.utf8))) }

    static func cut(_ text: String) -> String {
        text.utf8.count <= longestText ? text : String(decoding: text.utf8.prefix(longestText), as: UTF8.self) + "…"
    }

    /// Remembers a failure, for the configured time or until `until`.
    func remember(_ error: DarkroomError, for url: URL, until: Date? = nil) {
        guard duration > .zero else { return }
        let now = now()
        // A date from another process's longer memory is held to this one's.
        let until = min(until ?? .distantFuture, now.addingTimeInterval(duration.seconds))
        let kept = DarkroomError(error.kind, Self.cut(error.reason), underlying: error.underlying.map(Self.cut), statusCode: error.statusCode)
        let cost = 160 + kept.reason.utf8.count + (kept.underlying?.utf8.count ?? 0)
        let key = Self.key(url)
        state.withLock { state in
            if let old = state.failures[key] { state.bytes -= old.cost }
            state.stamp += 1
            state.failures[key] = Failure(error: kept, until: until, cost: cost, stamp: state.stamp)
            state.order.append((key, state.stamp))
            state.bytes += cost
            // The oldest first, until the memory is within its bound.
            while state.bytes > maxBytes, state.head < state.order.count {
                let (oldest, stamp) = state.order[state.head]
                state.head += 1
                if let failure = state.failures[oldest], failure.stamp == stamp {
                    state.failures[oldest] = nil
                    state.bytes -= failure.cost
                }
            }
            if state.head > 1024, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
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
        let key = Self.key(url)
        return state.withLock { state in
            guard let failure = state.failures[key] else { return nil }
            let remaining = failure.until.timeIntervalSince(now)
            guard remaining > 0, remaining <= duration.seconds else {
                state.failures[key] = nil
                state.bytes -= failure.cost
                return nil
            }
            let retry = Int(remaining.rounded(.up))
            let e = failure.error
            return DarkroomError(e.kind, "\(e.reason) (failed recently; it will be tried again in \(retry) s)",
                                 underlying: e.underlying, statusCode: e.statusCode)
        }
    }
}
