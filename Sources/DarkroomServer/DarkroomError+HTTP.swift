import Darkroom
import HTTPTypes
import Hummingbird

extension DarkroomError {
    /// The HTTP status a client sees for this error.
    var httpStatus: HTTPResponse.Status {
        switch kind {
        case .invalidOption, .invalidURL, .cannotEncode: .badRequest
        case .forbiddenSource: .forbidden
        case .httpStatus where statusCode == 404 || statusCode == 410: .notFound
        case .httpStatus, .networkFailure, .tooManyRedirects: .badGateway
        case .timedOut: .gatewayTimeout
        case .notAnImage, .corruptImage, .emptyInput, .tooManyBytes, .tooManyPixels: .unprocessableContent
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
