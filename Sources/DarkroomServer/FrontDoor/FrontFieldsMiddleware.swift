import HTTPTypes
import Hummingbird

/// Gives every request handled by the router its id, in the metadata of
/// the request's logger (so every line logged for it carries `request_id`),
/// and puts the front door's fields (``FrontFields``: the id, and CORS on
/// an image URL's answers) on its answer or its error's.
struct FrontFieldsMiddleware<Context: RequestContext>: RouterMiddleware {
    let fields: FrontFields

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let id = RequestID.id(carried: request.headers[RequestID.field])
        var context = context
        // Hummingbird's own id for the request is replaced by this one, so
        // a line never names the request by two different ids.
        context.logger[metadataKey: "request_id"] = .string(id)
        context.logger[metadataKey: "hb.request.id"] = .string(id)
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        // The image routes name their route before answering.
        fields.add(to: &response.headers, requestID: id, image: context.coreContext.endpointPath.value == ImageRoutes.metricsRoute)
        return response
    }
}
