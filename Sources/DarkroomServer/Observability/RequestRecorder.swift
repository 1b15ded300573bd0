import Dispatch
import Logging
import Metrics
import Synchronization

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

    /// One request begun: counted as active until its ``ActiveRequest`` ends.
    func begin(method: String) -> ActiveRequest {
        ActiveRequest(Meter(label: "http.server.active_requests", dimensions: [("http.request.method", method)], factory: factory))
    }

    /// One request answered (`error`: it ended in a thrown error).
    func answered(route: String, method: String, status: Int, since started: UInt64, error: Bool) {
        let dimensions = [("http.route", route), ("http.request.method", method), ("http.response.status_code", String(status))]
        let elapsed = DispatchTime.now().uptimeNanoseconds - started
        Counter(label: "hb.requests", dimensions: dimensions, factory: factory).increment()
        Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
            .recordNanoseconds(Int64(elapsed))
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
