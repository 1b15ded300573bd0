@testable import Darkroom
@testable import DarkroomServer
import Foundation
import NIOHTTP1
import Testing

/// The fields kept for a URL's hits serve only the image they were made for.
@Suite struct HitHeadTests {
    func response(_ bytes: Int, format: ImageFormat = .jpeg, cacheControl: String? = nil) -> ImageResponse {
        var response = ImageResponse(image: ProcessedImage(data: Data(count: bytes), format: format, width: 10, height: 10,
                                                           source: .init(format: .jpeg, width: 10, height: 10)),
                                     cacheType: .memory, sourceETag: "\"e\"", sourceLastModified: nil, key: "k")
        response.sourceCacheControl = cacheControl
        return response
    }

    @Test func aHeadFitsItsImageAndNoOther() {
        let head = HitHead(for: response(100), headers: HTTPHeaders([("ETag", response(100).etag)]))
        #expect(head.fits(response(100)))
        #expect(!head.fits(response(101)), "another length, another ETag")
        #expect(!head.fits(response(100, format: .webp)))
        #expect(!head.fits(response(100, cacheControl: "public, max-age=60")), "the origin's Cache-Control changed")
    }
}
