import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// A memory-cache hit answered on the connection's event loop
/// (``CachedImageHandler``), with the fields the router's answer has.
extension ImageRoutes {
    /// The answer to a GET of an image URL seen before whose image is in the
    /// memory cache, or nil for anything else; with the front door's fields
    /// (``FrontFields``), as the route's answers have them. In NIO's own HTTP/1
    /// types: ``CachedImageHandler`` sits in front of the conversion to
    /// Hummingbird's, so a hit pays for neither conversion.
    func cachedAnswer(to request: HTTPRequestHead, newID: () -> String = RequestID.next) -> (head: HTTPResponseHead, body: ByteBuffer?)? {
        // Only image URLs are in the parsed-URL cache: the route stores them.
        guard request.method == .GET, request.isKeepAlive else { return nil }
        // Without the secret, the router refuses it.
        guard configuration.secret.admits(request.headers["authorization"].first) else { return nil }
        // A client's cookies or passed headers may make the answer its own:
        // the route decides.
        if configuration.cookiePassthrough != nil, request.headers.contains(name: "cookie") { return nil }
        if configuration.requestHeadersPassthrough.contains(where: { request.headers.contains(name: $0) }) { return nil }
        let accept = request.headers["accept"]
        // More than one Accept field is joined by the route; rare enough to leave to it.
        let hints = configuration.clientHints ? ClientHints { request.headers[$0].first }.key : ""
        guard accept.count <= 1,
              let stored = parsedURLs.stored(for: ParsedURLCache.Key(target: request.uri, accept: accept.first ?? "", hints: hints)),
              !stored.entry.request.bypassesCache,
              let hit = pipeline.memoryCachedImage(processedKey: stored.entry.processedKey)
        else { return nil }
        let ifNoneMatch = request.headers["if-none-match"]
        let ifModifiedSince = request.headers["if-modified-since"].first
        var status = 200
        var headers: HTTPHeaders
        var body: ByteBuffer?
        let requestID = RequestID.id(carried: request.headers[RequestID.header].first, new: newID)
        if ifNoneMatch.isEmpty, ifModifiedSince == nil, let head = usualHead(stored, hit) {
            // The kept head has the lasting front fields already.
            headers = head.headers
            self.fields.addPerAnswer(to: &headers, requestID: requestID)
            body = hit.image.bytes
        } else {
            let conditions = Conditions(ifNoneMatch: ifNoneMatch.isEmpty ? nil : ifNoneMatch.joined(separator: ","), ifModifiedSince: ifModifiedSince)
            let fields: [(String, String)]
            (status, fields, body) = answerParts(hit, conditions: conditions, cacheControl: cacheControl(expires: stored.entry.expires, response: hit).value,
                                                 headers: stored.entry.headers(for: hit.image))
            headers = HTTPHeaders(fields)
            self.fields.add(to: &headers, requestID: requestID, image: true)
        }
        return (HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: status), headers: headers), body)
    }

    /// The fields of the usual hit on `hit` under `stored`'s URL: kept from
    /// an earlier hit, or made now and kept; nil where they cannot be kept.
    private func usualHead(_ stored: ParsedURLCache.Stored, _ hit: ImageResponse) -> HitHead? {
        if let head = stored.hitHead.load() { return head.fits(hit) ? head : nil }
        let control = cacheControl(expires: stored.entry.expires, response: hit)
        guard !control.countsDown else { return nil }
        let (_, fields, _) = answerParts(hit, conditions: Conditions(), cacheControl: control.value,
                                         headers: stored.entry.headers(for: hit.image))
        var headers = HTTPHeaders(fields)
        self.fields.addLasting(to: &headers, image: true)
        let head = stored.hitHead.storeIfNil(HitHead(for: hit, headers: headers))
        return head.fits(hit) ? head : nil
    }
}
