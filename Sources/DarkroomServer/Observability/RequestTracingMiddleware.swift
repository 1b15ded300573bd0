import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Tracing

/// A server span for every request the router handles, continuing the
/// trace the request's `traceparent` names: the route, the status, the
/// request's id and, for an image, the cache that answered
/// (`darkroom.cache`). The pipeline's spans (queue waits, the download,
/// decode, process, encode, stores) are its children.
///
/// Hummingbird's own tracing middleware keeps its span to itself; this one
/// lends it to the handler (``RequestTrace/span``), so the image route can
/// say which cache answered.
struct RequestTracingMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var parent = InstrumentationContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let span = OnceEndedSpan(startSpan("HTTP \(request.method.rawValue)", context: parent, ofKind: .server))
        span.span.updateAttributes { attributes in
            attributes["http.request.method"] = request.method.rawValue
            attributes["url.path"] = request.uri.path
            attributes["darkroom.request_id"] = context.logger[metadataKey: "request_id"]?.description
        }
        do {
            var response = try await InstrumentationContext.$current.withValue(span.span.context) {
                try await RequestTrace.$span.withValue(span.span) { try await next(request, context) }
            }
            span.finish(method: request.method, route: context.endpointPath, status: response.status)
            response.body = response.body.afterWrite { span.end() }
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            span.finish(method: request.method, route: context.endpointPath, status: status)
            if status.code >= 500 { span.span.recordError(error) }
            span.end()
            throw error
        }
    }
}

/// The request's server span, for the handler to add what only it knows.
enum RequestTrace {
    @TaskLocal static var span: (any Span)?
}

/// A span ended once: after the answer's body is written, or when the
/// answer is dropped unwritten (a client gone before it).
private final class OnceEndedSpan: Sendable {
    let span: any Span
    private let ended = Atomic<Bool>(false)

    init(_ span: any Span) { self.span = span }

    func finish(method: HTTPRequest.Method, route: String?, status: HTTPResponse.Status) {
        // Named by the route once it is known, as OpenTelemetry's HTTP
        // conventions name server spans: "GET /img/**".
        if let route { span.operationName = "\(method) \(route)" }
        span.updateAttributes { attributes in
            attributes["http.route"] = route
            attributes["http.response.status_code"] = Int(status.code)
        }
        if status.code >= 500 { span.setStatus(SpanStatus(code: .error)) }
    }

    func end() {
        if !ended.exchange(true, ordering: .relaxed) { span.end() }
    }

    deinit { end() }
}

private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from fields: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { fields[$0] }
    }
}
