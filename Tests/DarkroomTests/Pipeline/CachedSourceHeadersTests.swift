@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// The origin's caching headers travel with a source and its results into
/// the disk cache and the shared one, and come back, so a server passing
/// them on answers a restart's hit as it answered the first request.
@Suite struct CachedSourceHeadersTests {
    @Test func cacheControlAndExpiresSurviveEveryCache() throws {
        let data = try Fixtures.data("landscape.jpg")
        let source = SourceData(data: data, format: .jpeg, etag: "\"e\"", lastModified: "Tue, 01 Sep 2026 10:00:00 GMT",
                                cacheControl: "public, max-age=120", expires: "Thu, 01 Jan 2099 00:00:00 GMT")
        for back in [SourceData(diskEntry: source.diskEntry), SourceData(sharedObject: source.sharedObject)] {
            #expect(back?.cacheControl == "public, max-age=120" && back?.expires == "Thu, 01 Jan 2099 00:00:00 GMT")
        }
        var response = ImageResponse(image: ProcessedImage(data: data, format: .jpeg, width: 240, height: 160,
                                                           source: .init(format: .jpeg, width: 240, height: 160)),
                                     cacheType: nil, sourceETag: "\"e\"", sourceLastModified: nil, key: "k")
        response.sourceCacheControl = "private, no-cache"
        response.sourceExpires = "0"
        for back in [ImageResponse(diskEntry: response.diskEntry, key: "k"), ImageResponse(sharedObject: response.sharedObject, key: "k")] {
            #expect(back?.sourceCacheControl == "private, no-cache" && back?.sourceExpires == "0")
            #expect(back?.etag == response.etag, "the headers are not part of the ETag")
        }
    }
}
