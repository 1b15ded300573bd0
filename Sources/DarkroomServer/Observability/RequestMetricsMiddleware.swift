import Dispatch
import Hummingbird
import Metrics
import Synchronization

/// Hummingbird's request metrics (`hb_requests`,
/// `http_server_request_duration`, `http_server_active_requests`), with
/// the active count brought back down however a request ends.
///
/// Hummingbird's own middleware lowers the count after the body is
/// written; a client that hangs up before that (a slow image, a cancelled
/// page) left it raised for good. Here the request holds a token that
/// lowers the count once: after the body is written, or when the answer is
/// dropped unwritten.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The application's own metrics (see ``ServerMetrics``).
    let factory: any MetricsFactory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        let active = ActiveRequest(Meter(label: "http.server.active_requests", dimensions: [("http.request.method", request.method.description)],
                                       factory: factory))
        do {
            var response = try await next(request, context)
            let status = response.status
            let route = context.endpointPath ?? "Unknown"
            let method = request.method
            response.body = response.body.afterWrite {
                record(route: route, method: method, status: status, since: started, error: false)
                active.end()
            }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            record(route: context.endpointPath ?? "NotFound", method: request.method, status: status, since: started, error: true)
            active.end()
            throw error
        }
    }

    private func record(route: String, method: HTTPRequest.Method, status: HTTPResponse.Status, since started: UInt64, error: Bool) {
        let dimensions = [("http.route", route), ("http.request.method", method.description), ("http.response.status_code", status.code.description)]
        Counter(label: "hb.requests", dimensions: dimensions, factory: factory).increment()
        Timer(label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds, factory: factory)
            .recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
        if error {
            Counter(label: "hb.request.errors", dimensions: [("http.route", route), ("http.request.method", method.description),
                                                           ("error.type", status.code.description)], factory: factory).increment()
        }
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
