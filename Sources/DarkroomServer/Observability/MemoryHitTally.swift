import Metrics
import NIOCore

/// The memory-cache hits of one event loop, counted on that loop and
/// handed to the request metrics in batches; and the ids of its answers.
///
/// Every hit is answered on an event loop (``CachedImageHandler``).
/// Counting each one straight into the shared series (an atomic counter, a
/// gauge up and down, a histogram behind a lock) and drawing its id from
/// one atomic counter made the loops write the same memory on every hit:
/// at 16 connections, hits ran about 15% faster without them. Here a loop
/// appends to its own list, and the list goes to the series a quarter of a
/// second after its first entry, when it grows long, and before `/metrics`
/// is read (``RequestRecorder/flushMemoryHits()``), so that a scrape counts
/// every hit answered before it.
///
/// A hit is not counted in the active-requests gauge: it is active only
/// within the one call on the event loop that writes it, where no scrape
/// can see it.
final class MemoryHitTally: @unchecked Sendable {
    // Everything below `loop` is touched only on `loop`.
    let loop: any EventLoop
    private let factory: any MetricsFactory
    /// The series of a hit's answer by status (a 200 or a 304), each made at
    /// its first use, so that a server that has answered no image shows no
    /// series for its route. The factory gives every loop the same ones.
    private var series: [(status: Int, series: AnswerSeries)] = []
    private var pending: [(status: Int, nanoseconds: Int64)] = []
    private var flushScheduled = false
    private var idCounter = UInt64.random(in: .min ... .max)
    private let idPrefix = UInt64.random(in: .min ... .max)

    /// The most hits held before they go to the series at once.
    static let batch = 4_096

    init(loop: any EventLoop, factory: any MetricsFactory) {
        self.loop = loop
        self.factory = factory
        pending.reserveCapacity(256)
    }

    /// A hit answered with `status`, `nanoseconds` after its head arrived.
    func answered(status: Int, nanoseconds: Int64) {
        assert(loop.inEventLoop)
        pending.append((status, nanoseconds))
        if pending.count >= Self.batch {
            flush()
        } else if !flushScheduled {
            flushScheduled = true
            loop.assumeIsolated().scheduleTask(in: .milliseconds(250)) { [self] in
                flushScheduled = false
                flush()
            }
        }
    }

    /// Hands the held hits to the series. On `loop` only.
    func flush() {
        guard !pending.isEmpty else { return }
        var counted: [(status: Int, series: AnswerSeries, count: Int)] = []
        for hit in pending {
            let index: Int
            if let known = counted.firstIndex(where: { $0.status == hit.status }) {
                index = known
                counted[index].count += 1
            } else {
                index = counted.count
                counted.append((hit.status, series(for: hit.status), 1))
            }
            counted[index].series.duration.recordNanoseconds(hit.nanoseconds)
        }
        for entry in counted { entry.series.requests.increment(by: entry.count) }
        pending.removeAll(keepingCapacity: true)
    }

    private func series(for status: Int) -> AnswerSeries {
        if let known = series.first(where: { $0.status == status }) { return known.series }
        let made = AnswerSeries(route: ImageRoutes.metricsRoute, method: "GET", status: status, factory: factory)
        series.append((status, made))
        return made
    }

    /// A new request id (``RequestID``'s shape: 32 hex digits), unique
    /// without touching another loop's memory: this loop's random prefix
    /// and its own counter.
    func nextID() -> String {
        idCounter &+= 1
        return RequestID.hexDigits(idPrefix, idCounter)
    }
}
