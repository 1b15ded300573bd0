import HTTPTypes
import Hummingbird

/// A route's own error answer, for what a request asks rather than for an
/// image that failed: a signature that does not verify, a URL that does not
/// parse, a photobook or viewer that does not exist, a health check that
/// fails. Routes throw it as they throw a ``DarkroomError``; Hummingbird
/// answers with its status and message, as plain text that no cache keeps,
/// and the request metrics count it as an error.
struct RouteError: HTTPResponseError {
    let status: HTTPResponse.Status
    let message: String
    /// Fields the answer carries besides the plain-text ones (when to try
    /// again, CORS).
    var headers: HTTPFields

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// Signed URLs: the one answer for a signature missing or wrong.
    static let badSignature = RouteError(.forbidden, "the URL's signature is missing or wrong")

    func response(from request: Request, context: some RequestContext) throws -> Response {
        errorResponse(status, message, headers: headers)
    }
}
