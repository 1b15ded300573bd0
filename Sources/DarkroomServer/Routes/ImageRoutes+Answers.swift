import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// The answer to an image URL, one builder for the router's answers and
/// the memory-cache hits of ``CachedImageHandler``: the image's fields,
/// caching and conditions.
extension ImageRoutes {
    /// The answer: the image with caching headers, or 304 when the client's
    /// copy is current. The body is the cached buffer itself, not a copy.
    func answer(_ response: ImageResponse, request: Request, cacheControl: String, headers extra: [(String, String)]) -> Response {
        let conditions = Conditions(ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince])
        let (status, fields, body) = answerParts(response, conditions: conditions, cacheControl: cacheControl, headers: extra)
        var headers = HTTPFields()
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        return Response(status: .init(code: status), headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    /// A request's conditions: its `If-None-Match` and `If-Modified-Since`.
    struct Conditions {
        var ifNoneMatch: String?
        var ifModifiedSince: String?
    }

    /// The status, header fields and body of an answer, for Hummingbird's
    /// route and for ``CachedImageHandler`` alike. `Last-Modified` is the
    /// source's, as imgproxy passes it on; a 304 when `If-None-Match` names
    /// the ETag or, without it (RFC 9110), when `If-Modified-Since` is not
    /// before the source's `Last-Modified`.
    func answerParts(_ response: ImageResponse, conditions: Conditions, cacheControl: String,
                     headers extra: [(String, String)]) -> (status: Int, fields: [(String, String)], body: ByteBuffer?) {
        let etag = response.etag
        var fields = extra
        fields.reserveCapacity(extra.count + 7 + response.sourceHeaders.count)
        // The origin's fields the server passes on, as it sent them.
        for header in response.sourceHeaders { fields.append((header.name, header.value)) }
        fields.append(("ETag", etag))
        fields.append(("Cache-Control", cacheControl))
        let lastModified = configuration.usesLastModified ? response.sourceLastModified.flatMap { HTTPDate.isValid($0) ? $0 : nil } : nil
        if let lastModified { fields.append(("Last-Modified", lastModified)) }
        if let ifNoneMatch = conditions.ifNoneMatch {
            if Self.matches(ifNoneMatch, etag: etag) { return (304, fields, nil) }
        } else if let since = conditions.ifModifiedSince.flatMap(HTTPDate.parse), let modified = lastModified.flatMap(HTTPDate.parse),
                  modified <= since {
            return (304, fields, nil)
        }
        fields.append(("Content-Type", response.image.format.mimeType))
        fields.append(("Content-Length", String(response.image.byteCount)))
        return (200, fields, response.image.bytes)
    }

    /// Cache-Control for an answer, in imgproxy's order: the server's
    /// max-age cut so that no cache keeps the answer past the URL's own
    /// expiry (`exp`); else, with passthrough, the origin's `Cache-Control`
    /// as it sent it, or its `Expires` still ahead as a max-age; else the
    /// server's max-age. `countsDown` where the value was read from the
    /// clock (an expiry's), so that it is made for each answer, never kept.
    func cacheControl(expires: Date?, response: ImageResponse, now: Date? = nil) -> (value: String, countsDown: Bool) {
        // The clock is read only where an expiry needs it (not on a usual hit).
        if let expires {
            let left = max(0, Int(expires.timeIntervalSince(now ?? Date()).rounded(.down)))
            return (left < configuration.cacheMaxAge ? "public, max-age=\(left)" : cacheControl, true)
        }
        if configuration.cacheControlPassthrough {
            if let origin = response.sourceCacheControl, !origin.isEmpty { return (origin, false) }
            if let expires = response.sourceExpires.flatMap(HTTPDate.parse) {
                let left = expires - Int((now ?? Date()).timeIntervalSince1970)
                return (left > 0 ? "public, max-age=\(left)" : cacheControl, true)
            }
        }
        return (cacheControl, false)
    }

    /// `Cache-Control` for one client's answer: `public` made `private`
    /// (or `private` added), the rest kept.
    static func privateCacheControl(_ value: String) -> String {
        let directives = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.lowercased() != "public" && $0.lowercased() != "private" }
        return (["private"] + directives).joined(separator: ", ")
    }

    /// Whether an If-None-Match list names `etag` (or is `*`).
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == etag || tag == "*" || tag == "W/" + etag
        }
    }
}
