import Dispatch
import Logging
import Metrics
import NIOCore
import Synchronization
import DarkroomImaging

/// What every answer leaves behind, however it was answered: Hummingbird's
/// request metrics (`hb_requests`, `http_server_request_duration`,
/// `http_server_active_requests`, `hb_request_errors`) with the same labels,
/// and with `--access-log` one line at info level. The router's middleware
/// and the memory-cache hits answered on the event loop
/// (``CachedImageHandler``) both record through it, so a dashboard counts
/// the most frequent answer too. Hits are counted in batches, per event
/// loop, and not in the active gauge (``MemoryHitTally`` says why).
struct RequestRecorder: Sendable {
    /// The application's own metrics (see ``ServerMetrics``).
    let factory: any MetricsFactory
    /// Where access lines go; nil without `--access-log`.
    let accessLog: Logger?
    /// The metrics' handles, made once per set of labels: making one asks
    /// the factory, which checks and looks up the names under its lock,
    /// and on the hit path that cost more than the answer itself.
    private let handles = Handles()
    /// The memory-cache hits' tallies.
    private let hits: MemoryHits

    init(factory: any MetricsFactory, accessLog: Logger?) {
        self.factory = factory
        self.accessLog = accessLog
        hits = MemoryHits(handles: handles, factory: factory)
    }

    var logsAccess: Bool { accessLog != nil }

    /// The tally of the memory-cache hits answered on `loop`: one per
    /// event loop, which its connections share (``MemoryHitTally``).
    func memoryHitTally(on loop: any EventLoop) -> MemoryHitTally {
        hits.tally(on: loop)
    }

    /// Hands every event loop's held hits to the series; what `/metrics`
    /// does before it reads them.
    func flushMemoryHits() {
        for tally in hits.tallies { tally.flush() }
    }

    /// One request begun: counted as active until its ``ActiveRequest`` ends.
    func begin(method: String) -> ActiveRequest {
        ActiveRequest(handles.meter(method: method) {
            Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method)], factory: factory)
        })
    }

    /// One request answered (`error`: it ended in a thrown error).
    func answered(route: String, method: String, status: Int, since started: UInt64, error: Bool) {
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        let answer = handles.series(route: route, method: method, status: status, factory: factory)
        answer.requests.increment()
        answer.duration.recordNanoseconds(Int64(elapsed))
        if error {
            Counter(label: "hb.request.errors", dimensions: [("http.route", route), ("http.request.method", method),
                                                           ("error.type", String(status))], factory: factory).increment()
        }
    }

    /// The access line: the request, its answer and how long it took; with
    /// `logger`'s metadata (the request's id, on the router's side).
    func logAccess(_ logger: Logger?, method: String, path: String, status: Int, since started: UInt64,
                   extra: Logger.Metadata = [:]) {
        guard let accessLog else { return }
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        var metadata: Logger.Metadata = [
            "hb.request.method": .string(method),
            "hb.request.path": .string(path),
            "hb.response.status": .stringConvertible(status),
            "duration_ms": .string(String(format: "%.3f", Double(elapsed) / 1e6)),
        ]
        metadata.merge(extra) { $1 }
        (logger ?? accessLog).info("Request", metadata: metadata)
    }
}

/// The series one kind of answer counts in: requests, and their durations.
struct AnswerSeries: Sendable {
    let requests: Counter
    let duration: Timer

    /// The series of a route's answers of one method and status, from the
    /// factory (which gives the same ones for the same labels).
    init(route: String, method: String, status: Int, factory: any MetricsFactory) {
        let dimensions = [("http.route", route), ("http.request.method", method), ("http.response.status_code", String(status))]
        requests = Counter(label: "hb.requests", dimensions: dimensions, factory: factory)
        duration = Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
    }
}

/// One request in the active count: counted when made, uncounted once,
/// by ``end()`` or, failing that, when the last reference goes.
final class ActiveRequest: Sendable {
    private let meter: Meter
    private let ended = Atomic<Bool>(false)

    init(_ meter: Meter) {
        self.meter = meter
        meter.increment()
    }

    func end() {
        if !ended.exchange(true, ordering: .relaxed) { meter.decrement() }
    }

    deinit { end() }
}

/// The request metrics' handles by their labels, up to a bound: the
/// method comes from the client, so past the bound a handle is made for
/// each use, as without this cache, instead of growing it.
private final class Handles: Sendable {
    struct AnswerKey: Hashable {
        var route: String
        var method: String
        var status: Int
    }

    private struct State {
        var answers: [AnswerKey: AnswerSeries] = [:]
        var meters: [String: Meter] = [:]
    }

    private static let bound = 512
    private let state = Locked(State())

    /// The series of a route's answers of one method and status: the
    /// router's and the memory-cache hits' alike.
    func series(route: String, method: String, status: Int, factory: any MetricsFactory) -> AnswerSeries {
        let key = AnswerKey(route: route, method: method, status: status)
        if let known = state.withLock({ $0.answers[key] }) { return known }
        let made = AnswerSeries(route: route, method: method, status: status, factory: factory)
        state.withLock { if $0.answers.count < Self.bound { $0.answers[key] = made } }
        return made
    }

    func meter(method: String, make: () -> Meter) -> Meter {
        if let known = state.withLock({ $0.meters[method] }) { return known }
        let made = make()
        state.withLock { if $0.meters.count < Self.bound { $0.meters[method] = made } }
        return made
    }
}

/// The memory-cache hits' tallies, one per event loop.
private final class MemoryHits: Sendable {
    private let handles: Handles
    private let factory: any MetricsFactory
    private let byLoop = Locked<[ObjectIdentifier: MemoryHitTally]>([:])

    init(handles: Handles, factory: any MetricsFactory) {
        self.handles = handles
        self.factory = factory
    }

    var tallies: [MemoryHitTally] { byLoop.withLock { Array($0.values) } }

    /// A loop's tally, made at its first connection.
    func tally(on loop: any EventLoop) -> MemoryHitTally {
        byLoop.withLock { tallies in
            if let known = tallies[ObjectIdentifier(loop)] { return known }
            // A hit is a GET of the image route; its series are the router's.
            let made = MemoryHitTally(loop: loop) { [handles, factory] status in
                handles.series(route: ImageRoutes.metricsRoute, method: "GET", status: status, factory: factory)
            }
            tallies[ObjectIdentifier(loop)] = made
            return made
        }
    }
}
