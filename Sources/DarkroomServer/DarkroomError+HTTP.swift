public import Darkroom
public import HTTPTypes
public import Hummingbird

/// A route throws a ``DarkroomError`` as it is: Hummingbird answers with
/// the error's status and reason, as plain text that no cache keeps.
extension DarkroomError: HTTPResponseError {
    public var status: HTTPResponse.Status { httpStatus }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(headers: [:])
    }

    /// The answer, with `extra` header fields (an overloaded server's
    /// answer says when to try again).
    func response(headers extra: HTTPFields) -> Response {
        var headers = extra
        if kind == .overloaded { headers[.retryAfter] = "2" }
        return errorResponse(httpStatus, description, headers: headers)
    }

    /// The HTTP status a client sees for this error, as imgproxy answers:
    /// a source refused (its scheme, its address, the allow-list, on any
    /// redirect hop) is a 404, an origin's 4xx passes through with its
    /// status, a format that cannot be written is a 422.
    var httpStatus: HTTPResponse.Status {
        switch kind {
        case .overloaded: .tooManyRequests
        case .notCached: .notFound
        case .invalidOption, .invalidURL: .badRequest
        case .forbiddenSource: .notFound
        case .httpStatus where statusCode == 410: .notFound
        case .httpStatus where (400..<500).contains(statusCode ?? 0): HTTPResponse.Status(code: statusCode ?? 404)
        case .httpStatus, .networkFailure, .tooManyRedirects: .badGateway
        case .timedOut: .gatewayTimeout
        case .cannotEncode, .notAnImage, .corruptImage, .emptyInput, .tooManyBytes, .tooManyPixels, .tooManyScans, .tooMuchMemory, .tooComplex: .unprocessableContent
        case .cancelled, .processingTimedOut: .serviceUnavailable
        default: .internalServerError
        }
    }
}

/// A plain-text error answer that no cache keeps.
func errorResponse(_ status: HTTPResponse.Status, _ message: String, headers extra: HTTPFields = [:]) -> Response {
    var headers = extra
    headers[.contentType] = "text/plain; charset=utf-8"
    headers[.cacheControl] = "no-store"
    return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
}
