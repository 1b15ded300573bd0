import Darkroom
import NIOHTTP1

/// The header fields of a URL's usual hit, a 200 to a request without
/// conditions, but for those made for each answer (``FrontFields``'s
/// `Date` and request id): made at the URL's first
/// hit and kept with its parsed entry (``ParsedURLCache/Stored``), as
/// building them on every hit (the file name's disposition, the length,
/// two lists of fields) showed in a hit's profile.
///
/// Made for one image: a hit on another image under the same URL (a new
/// ETag, format or origin `Cache-Control`) builds its fields again. A head
/// whose `Cache-Control` depends on the clock (the URL's expiry, an
/// origin's `Expires`) is never kept.
final class HitHead: Sendable {
    let etag: String
    let format: ImageFormat
    let sourceCacheControl: String?
    let sourceHeaders: [PassedHeader]
    let headers: HTTPHeaders

    init(for hit: ImageResponse, headers: HTTPHeaders) {
        etag = hit.etag
        format = hit.image.format
        sourceCacheControl = hit.sourceCacheControl
        sourceHeaders = hit.sourceHeaders
        self.headers = headers
    }

    func fits(_ hit: ImageResponse) -> Bool {
        hit.etag == etag && hit.image.format == format && hit.sourceCacheControl == sourceCacheControl && hit.sourceHeaders == sourceHeaders
    }
}
