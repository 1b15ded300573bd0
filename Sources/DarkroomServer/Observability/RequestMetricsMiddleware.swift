import Dispatch
import Hummingbird

/// Hummingbird's request metrics and the access line (see
/// ``RequestRecorder``) for the answers the router gives, with the active
/// count brought back down however a request ends.
///
/// Hummingbird's own middleware lowers the count after the body is
/// written; a client that hangs up before that (a slow image, a cancelled
/// page) left it raised for good. Here the request holds a token that
/// lowers the count once: after the body is written, or when the answer is
/// dropped unwritten.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let recorder: RequestRecorder

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        let method = request.method.rawValue
        let active = recorder.begin(method: method)
        do {
            var response = try await next(request, context)
            let status = response.status.code
            let route = context.endpointPath ?? "Unknown"
            let (recorder, logger, path) = (recorder, context.logger, request.uri.description)
            response.body = response.body.afterWrite {
                // An image's error is answered, not thrown (it carries Vary,
                // or a fallback image stands in): counted as an error all the same.
                recorder.answered(route: route, method: method, status: status, since: started, error: status >= 400)
                recorder.logAccess(logger, method: method, path: path, status: status, since: started)
                active.end()
            }
            return response
        } catch {
            let status = ((error as? any HTTPResponseError)?.status ?? .internalServerError).code
            recorder.answered(route: context.endpointPath ?? "NotFound", method: method, status: status, since: started, error: true)
            recorder.logAccess(context.logger, method: method, path: request.uri.description, status: status, since: started)
            active.end()
            throw error
        }
    }
}
