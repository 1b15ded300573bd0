import Darkroom
@testable import DarkroomServer
import Foundation
import Testing

/// The parsed-URL cache is bounded by bytes, and long Accept headers are
/// kept as what they mean, so that neither many long URLs nor many long
/// headers grow it.
@Suite struct ParsedURLCacheTests {
    static func entry(_ index: Int) -> ParsedURLCache.Entry {
        let request = ImageRequest(url: URL(string: "https://example.com/\(index).jpg")!)
        return ParsedURLCache.Entry(request: request, processedKey: "key-\(index)", negotiated: true)
    }

    @Test func manyLongTargetsStayWithinTheBound() {
        let cache = ParsedURLCache(maxBytes: 1 << 20)
        for index in 0..<2_000 {
            let key = ParsedURLCache.Key(target: "/img/_/cb:\(index)" + String(repeating: "a", count: 16_000) + "/plain/x", accept: "*/*")
            cache.store(Self.entry(index), for: key)
            #expect(cache.bytes <= 1 << 20)
        }
        // What is there is found.
        let key = ParsedURLCache.Key(target: "/img/_/w:10/plain/x", accept: "image/webp,*/*")
        cache.store(Self.entry(1), for: key)
        #expect(cache.entry(for: key)?.processedKey == "key-1")
    }

    @Test func longAcceptHeadersAreKeptAsWhatTheyMean() {
        let padding = (0..<4_000).map { "x-\($0)/y" }.joined(separator: ",")
        let first = ParsedURLCache.Key(target: "/img/_/w:10/plain/x", accept: "image/webp,\(padding)")
        let second = ParsedURLCache.Key(target: "/img/_/w:10/plain/x", accept: "image/webp,\(padding),x/z")
        #expect(first == second)
        #expect(first.accept.utf8.count < 64)
        // A browser's header is kept as sent: a hit needs it unparsed.
        let browser = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        #expect(ParsedURLCache.Key(target: "/a", accept: browser).accept == browser)
        // A long header that takes other formats is another key.
        let other = ParsedURLCache.Key(target: "/img/_/w:10/plain/x", accept: "image/avif,\(padding)")
        #expect(other != first)
    }
}
