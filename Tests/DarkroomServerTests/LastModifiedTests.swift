import Foundation
import Testing
import TestSupport
import ServerTestSupport
@testable import DarkroomServer

/// `Last-Modified` and `If-Modified-Since` as imgproxy 4 has them by
/// default: the source's date passed on with its images, a 304 for a client
/// whose copy is not older, and the ETag deciding when both are sent.
@Suite(.offCooperativePool) struct LastModifiedTests {
    static let originDate = "Tue, 01 Sep 2026 10:00:00 GMT"

    @Test func theSourcesDateAndConditionalRequests() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let path = "/_/rs:fit:100:100/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            let miss = try await server.get(path)
            #expect(miss.status == .ok && miss.header("Last-Modified") == Self.originDate)
            // Asked again, a memory hit answered on the connection's loop.
            let hit = try await server.get(path)
            #expect(hit.header("Last-Modified") == Self.originDate)
            for (since, status) in [(Self.originDate, 304), ("Wed, 02 Sep 2026 00:00:00 GMT", 304),
                                    ("Tuesday, 01-Sep-26 10:00:00 GMT", 304), ("Tue Sep  1 10:00:00 2026", 304),
                                    ("Tue, 01 Sep 2026 09:59:59 GMT", 200), ("yesterday", 200)] {
                let answer = try await server.get(path, headers: [("If-Modified-Since", since)])
                #expect(Int(answer.status.code) == status, "\(since)")
                #expect(answer.header("Last-Modified") == Self.originDate)
                if status == 304 { #expect(answer.body.isEmpty) }
            }
            // If-None-Match decides when both are sent (RFC 9110).
            let both = try await server.get(path, headers: [("If-Modified-Since", "Wed, 02 Sep 2026 00:00:00 GMT"), ("If-None-Match", "\"other\"")])
            #expect(both.status == .ok)
            let tagged = try await server.get(path, headers: [("If-Modified-Since", "Mon, 01 Jan 2001 00:00:00 GMT"),
                                                              ("If-None-Match", miss.header("ETag") ?? "")])
            #expect(tagged.status == .notModified)
        }
        // Turned off, as IMGPROXY_USE_LAST_MODIFIED=false does: no date, none read.
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.usesLastModified = false }) { server, origin in
            let path = "/_/rs:fit:90:90/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            for _ in 0..<2 {
                let answer = try await server.get(path, headers: [("If-Modified-Since", "Wed, 02 Sep 2026 00:00:00 GMT")])
                #expect(answer.status == .ok && answer.header("Last-Modified") == nil)
            }
        }
    }
}

/// The origin's `Cache-Control` and `Expires` passed on, as imgproxy's
/// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH` does: the origin's Cache-Control as
/// it came, else its Expires as a max-age, else the server's; a URL's `exp`
/// first. Kept with the cached image, so hits answer the same.
@Suite(.offCooperativePool) struct CacheControlPassthroughTests {
    @Test func theOriginsCachingHeadersAsImgproxyPassesThem() async throws {
        let set = Date()
        let inAnHour = HTTPDate.format(Int(set.timeIntervalSince1970) + 3600)
        try await TestServer.withOrigin(serving: Fixtures.folder, {
            $0.cacheControlPassthrough = true
            $0.cacheMaxAge = 600
        }) { server, origin in
            origin.set(.headers([("Cache-Control", "public, max-age=120, s-maxage=60")]), for: "/landscape.jpg")
            origin.set(.headers([("Expires", inAnHour)]), for: "/alpha.png")
            origin.set(.headers([("Expires", "Thu, 01 Jan 2015 00:00:00 GMT")]), for: "/landscape.webp")
            func cacheControl(_ source: String, _ options: String = "w:50") async throws -> String? {
                let answer = try await server.get("/_/\(options)/plain/\(origin.url(source).absoluteString)")
                #expect(answer.status == .ok)
                return answer.header("Cache-Control")
            }
            #expect(try await cacheControl("/landscape.jpg") == "public, max-age=120, s-maxage=60")
            #expect(try await cacheControl("/landscape.jpg") == "public, max-age=120, s-maxage=60", "a memory hit keeps it")
            let fromExpires = try #require(try await cacheControl("/alpha.png"))
            let age = Int(fromExpires.split(separator: "=").last ?? "") ?? 0
            // What is left of the hour, however long a busy machine took to get here.
            let elapsed = Int(Date().timeIntervalSince(set).rounded(.up))
            #expect(fromExpires.hasPrefix("public, max-age=") && ((3600 - elapsed - 2)...3600).contains(age), "\(fromExpires), \(elapsed) s on")
            #expect(try await cacheControl("/landscape.webp") == "public, max-age=600", "an Expires passed: the server's")
            #expect(try await cacheControl("/landscape.gif") == "public, max-age=600", "none sent: the server's")
            // A URL's expiry comes first, as imgproxy's.
            let expiring = try await cacheControl("/landscape.jpg", "w:51/exp:\(Int(Date().timeIntervalSince1970) + 100)")
            #expect(expiring?.hasPrefix("public, max-age=") == true && expiring != "public, max-age=120, s-maxage=60")
        }
        // Off, as by default: the server's own.
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.cacheMaxAge = 600 }) { server, origin in
            origin.set(.headers([("Cache-Control", "public, max-age=120")]), for: "/landscape.jpg")
            let answer = try await server.get("/_/w:50/plain/\(origin.url("/landscape.jpg").absoluteString)")
            #expect(answer.header("Cache-Control") == "public, max-age=600")
        }
    }
}

/// HTTP dates read in RFC 9110's three forms, and against the formatter.
@Suite struct HTTPDateTests {
    @Test func theThreeFormsAndTheirNeighbours() {
        let second = 1_788_256_800  // Tue, 01 Sep 2026 10:00:00 GMT
        #expect(HTTPDate.parse("Tue, 01 Sep 2026 10:00:00 GMT") == second)
        #expect(HTTPDate.parse("Tuesday, 01-Sep-26 10:00:00 GMT") == second)
        #expect(HTTPDate.parse("Tue Sep  1 10:00:00 2026") == second)
        #expect(HTTPDate.parse("Thu, 01 Jan 1970 00:00:00 GMT") == 0)
        #expect(HTTPDate.parse("Tue, 29 Feb 2028 23:59:59 GMT") == 1_835_481_599)
        for bad in ["", "yesterday", "Tue, 01 Sep 2026 10:00:00 UTC", "Tue, 01 Sxp 2026 10:00:00 GMT", "Tue, 32 Sep 2026 10:00:00 GMT",
                    "Tue, 01 Sep 2026 25:00:00 GMT", "Tue, 01 Sep 2026 10:00 GMT"] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
        // Whatever the formatter writes, the parser reads back.
        for t in stride(from: 0, through: 4_102_444_800, by: 86_400 * 37 + 3_601) {
            #expect(HTTPDate.parse(HTTPDate.format(t)) == t)
        }
    }
}
