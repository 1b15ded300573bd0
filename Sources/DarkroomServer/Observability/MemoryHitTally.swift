import NIOCore
import Synchronization
import DarkroomImaging

/// The memory-cache hits of one event loop, counted by that loop and
/// handed to the request metrics in batches; and the ids of its answers.
///
/// Every hit is answered on an event loop (``CachedImageHandler``).
/// Counting each one straight into the shared series (an atomic counter, a
/// gauge up and down, a histogram behind a lock) and drawing its id from
/// one atomic counter made the loops write the same memory on every hit:
/// at 16 connections, hits ran about 15% faster without them. Here a loop
/// appends to its own list, behind a lock that only it takes between
/// scrapes, and the list goes to the series a quarter of a second after its
/// first entry, when it reaches ``batch``, and as `/metrics` is read
/// (``RequestRecorder/flushMemoryHits()``), so that a scrape counts every
/// hit answered before it.
///
/// A hit is not counted in the active-requests gauge, even while a large
/// answer is still being written: that was two more shared writes per hit.
final class MemoryHitTally: Sendable {
    private struct State {
        var pending: [(status: Int, nanoseconds: Int64)] = []
        var flushScheduled = false
    }

    let loop: any EventLoop
    private let state = Locked(State())
    /// The series of a hit's answer by status (a 200 or a 304), asked for
    /// at a flush: a server that has answered no image shows no series
    /// for its route.
    private let series: @Sendable (Int) -> AnswerSeries
    /// Drawn only by this loop's hits: uncontended.
    private let idCounter = Atomic<UInt64>(UInt64.random(in: .min ... .max))
    private let idPrefix = UInt64.random(in: .min ... .max)

    /// The most hits held before they go to the series at once: few enough
    /// that a flush, which records each hit's duration one by one, holds
    /// its loop (and the hits waiting on it) only briefly.
    static let batch = 512

    init(loop: any EventLoop, series: @escaping @Sendable (Int) -> AnswerSeries) {
        self.loop = loop
        self.series = series
    }

    /// A hit answered with `status`, `nanoseconds` after its first byte arrived.
    /// On `loop`.
    func answered(status: Int, nanoseconds: Int64) {
        let (full, schedule) = state.withLock { state in
            state.pending.append((status, nanoseconds))
            let schedule = !state.flushScheduled
            state.flushScheduled = true
            return (state.pending.count >= Self.batch, schedule)
        }
        if full { flush() }
        if schedule {
            loop.scheduleTask(in: .milliseconds(250)) { [self] in
                state.withLock { $0.flushScheduled = false }
                flush()
            }
        }
    }

    /// Hands the held hits to the series; from any thread, so that a scrape
    /// never waits on a loop.
    func flush() {
        let taken = state.withLock { state in
            let taken = state.pending
            state.pending.removeAll(keepingCapacity: true)
            return taken
        }
        guard !taken.isEmpty else { return }
        // One or two statuses (200, 304): a short list searched in place
        // costs a flush less per hit than a dictionary read and written back.
        var counted: [(status: Int, series: AnswerSeries, count: Int)] = []
        for hit in taken {
            let index = counted.firstIndex { $0.status == hit.status } ?? {
                counted.append((hit.status, series(hit.status), 0))
                return counted.count - 1
            }()
            counted[index].series.duration.recordNanoseconds(hit.nanoseconds)
            counted[index].count += 1
        }
        for entry in counted { entry.series.requests.increment(by: entry.count) }
    }

    /// A new request id (``RequestID``'s shape: 32 hex digits), unique
    /// without touching another loop's memory: this loop's random prefix
    /// and its own counter.
    func nextID() -> String {
        RequestID.hexDigits(idPrefix, idCounter.wrappingAdd(1, ordering: .relaxed).newValue)
    }
}
