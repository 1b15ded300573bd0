import Dispatch
import Logging
import Metrics
import Synchronization
import DarkroomImaging

/// What every answer leaves behind, however it was answered: Hummingbird's
/// request metrics (`hb_requests`, `http_server_request_duration`,
/// `http_server_active_requests`, `hb_request_errors`) with the same labels,
/// and with `--access-log` one line at info level. The router's middleware
/// and the memory-cache hits answered on the event loop
/// (``CachedImageHandler``) both record through it, so a dashboard counts
/// the most frequent answer too.
struct RequestRecorder: Sendable {
    /// The application's own metrics (see ``ServerMetrics``).
    let factory: any MetricsFactory
    /// Where access lines go; nil without `--access-log`.
    let accessLog: Logger?
    /// The metrics' handles, made once per set of labels: making one asks
    /// the factory, which checks and looks up the names under its lock,
    /// and on the hit path that cost more than the answer itself.
    private let handles = Handles()
    /// The memory-cache hits' handles: their labels are known (a GET of the
    /// image route, 200 or 304).
    private let hits: MemoryHits

    init(factory: any MetricsFactory, accessLog: Logger?) {
        self.factory = factory
        self.accessLog = accessLog
        hits = MemoryHits(factory: factory)
    }

    var logsAccess: Bool { accessLog != nil }

    /// A memory-cache hit begun (answered on the event loop): counted as
    /// active until ``answeredMemoryHit(status:since:written:)``.
    func beginMemoryHit() {
        hits.active.increment()
    }

    /// A memory-cache hit's answer has been written (`written`), or its
    /// write failed: it is no longer active, and, written, counted as any
    /// answer of the route is.
    func answeredMemoryHit(status: Int, since started: UInt64, written: Bool) {
        hits.active.decrement()
        guard written else { return }
        let answer = hits.answer(status)
        answer.requests.increment()
        answer.duration.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
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
        let answer = handles.answer(Handles.AnswerKey(route: route, method: method, status: status)) {
            Handles.makeAnswer(route: route, method: method, status: status, factory: factory)
        }
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

    typealias Answer = (requests: Counter, duration: Timer)

    /// An answer's request counter and duration histogram, from the factory.
    static func makeAnswer(route: String, method: String, status: Int, factory: any MetricsFactory) -> Answer {
        let dimensions = [("http.route", route), ("http.request.method", method), ("http.response.status_code", String(status))]
        return (Counter(label: "hb.requests", dimensions: dimensions, factory: factory),
                Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory))
    }
    private struct State {
        var answers: [AnswerKey: Answer] = [:]
        var meters: [String: Meter] = [:]
    }

    private static let bound = 512
    private let state = Locked(State())

    func answer(_ key: AnswerKey, make: () -> Answer) -> Answer {
        if let known = state.withLock({ $0.answers[key] }) { return known }
        let made = make()
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

/// The handles of the memory-cache hits' metrics, each made at its first
/// use: a server that has answered no image shows no series for its route.
private final class MemoryHits: Sendable {
    let active: Meter
    private let factory: any MetricsFactory
    private let answers = Locked<[Int: Handles.Answer]>([:])

    init(factory: any MetricsFactory) {
        self.factory = factory
        active = Meter(label: "http.server.active_requests", dimensions: [("http.request.method", "GET")], factory: factory)
    }

    /// The handles for an answer of `status` (a hit is a 200 or a 304).
    func answer(_ status: Int) -> Handles.Answer {
        if let known = answers.withLock({ $0[status] }) { return known }
        let made = Handles.makeAnswer(route: ImageRoutes.metricsRoute, method: "GET", status: status, factory: factory)
        answers.withLock { $0[status] = made }
        return made
    }
}
