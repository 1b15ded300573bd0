import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// A client's cookies sent on as imgproxy sends them: to a source on the
/// host the client asked (or the base URL's), under its directory; with
/// `all`, to any source; and never one client's answer to another.
struct CookiePassthroughTests {
    @Test func whichSourcesGetTheCookies() {
        func cookies(_ source: String, _ passthrough: CookiePassthrough, _ fields: [String: String]) -> String? {
            passthrough.cookies(for: URL(string: source)!) { fields[$0] }
        }
        let asked = ["cookie": "session=abc; theme=dark", "host": "images.example:8080"]
        let plain = CookiePassthrough()
        #expect(cookies("http://images.example/a.jpg", plain, asked) == "session=abc; theme=dark", "the host asked, any port")
        #expect(cookies("https://images.example/photos/a.jpg", plain, asked) != nil)
        #expect(cookies("http://cdn.images.example/a.jpg", plain, asked) == nil, "host-only, as a cookie without Domain")
        #expect(cookies("http://other.example/a.jpg", plain, asked) == nil)
        #expect(cookies("http://images.example/a.jpg", plain, ["host": "images.example"]) == nil, "no cookies, none sent")
        // X-Forwarded-Host wins over Host, as imgproxy reads it.
        #expect(cookies("http://public.example/a.jpg", plain, asked.merging(["x-forwarded-host": "public.example"]) { $1 }) != nil)
        // The base URL's directory bounds the path.
        let based = CookiePassthrough(baseURL: URL(string: "https://site.example/members/index.html"))
        #expect(cookies("http://site.example/members/a.jpg", based, asked) != nil)
        #expect(cookies("http://site.example/public/a.jpg", based, asked) == nil)
        #expect(cookies("http://images.example/members/a.jpg", based, asked) == nil, "the base URL, not the host asked")
        #expect(cookies("http://anywhere.example/a.jpg", CookiePassthrough(all: true), asked) == "session=abc; theme=dark")
        #expect(cookies("http://images.example/a.jpg", plain, ["cookie": "a=1\r\nX-Injected: 1", "host": "images.example"]) == nil)
    }

    @Test func theOriginGetsTheClientsCookiesAndEachClientItsOwnAnswer() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.cookiePassthrough = CookiePassthrough(all: true) }) { server, origin in
            let path = "/_/w:40/plain/\(origin.url("/landscape.jpg").absoluteString)@png"
            let first = try await server.get(path, headers: [("Cookie", "session=one")])
            #expect(first.status == .ok)
            #expect(origin.lastHeaders("/landscape.jpg")?["cookie"] == "session=one")
            // Another client's cookies: asked for again, not the first's answer.
            _ = try await server.get(path, headers: [("Cookie", "session=two")])
            #expect(origin.lastHeaders("/landscape.jpg")?["cookie"] == "session=two")
            #expect(origin.requests("/landscape.jpg") == 2)
            // The same cookies again: answered from the cache, on every path.
            for _ in 0..<2 { _ = try await server.get(path, headers: [("Cookie", "session=one")]) }
            #expect(origin.requests("/landscape.jpg") == 2)
            // No cookies: its own answer, and none sent.
            _ = try await server.get(path)
            #expect(origin.requests("/landscape.jpg") == 3 && origin.lastHeaders("/landscape.jpg")?["cookie"] == nil)
        }
        // Off, as by default: nothing is sent.
        try await TestServer.withOrigin(serving: Fixtures.folder) { server, origin in
            _ = try await server.get("/_/w:40/plain/\(origin.url("/landscape.jpg").absoluteString)@png", headers: [("Cookie", "session=one")])
            #expect(origin.requests("/landscape.jpg") == 1 && origin.lastHeaders("/landscape.jpg")?["cookie"] == nil)
        }
    }

    /// imgproxy Pro's `IMGPROXY_REQUEST_HEADERS_PASSTHROUGH`: the named
    /// fields of the client's request go to the origin, and each set of
    /// values is its own answer.
    /// Without a base URL, the host the client asked: Hummingbird keeps
    /// the Host field as the request's authority. A personalised answer is
    /// private to shared caches in front.
    @Test func theHostAskedIsTheCookiesBaseByDefault() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.cookiePassthrough = CookiePassthrough() }) { server, origin in
            // The server and the origin are both on 127.0.0.1: the same host, any port.
            let path = "/_/w:20/plain/\(origin.url("/landscape.jpg").absoluteString)@png"
            let answer = try await server.get(path, headers: [("Cookie", "session=host")])
            #expect(origin.lastHeaders("/landscape.jpg")?["cookie"] == "session=host")
            #expect(answer.header("Cache-Control")?.hasPrefix("private, max-age=") == true, "\(answer.header("Cache-Control") ?? "")")
            #expect(try await server.get(path).header("Cache-Control")?.hasPrefix("public") == true)
        }
    }

    @Test func namedRequestHeadersGoToTheOrigin() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.requestHeadersPassthrough = ["authorization", "x-tenant"] }) { server, origin in
            let path = "/_/w:30/plain/\(origin.url("/landscape.jpg").absoluteString)@png"
            _ = try await server.get(path, headers: [("Authorization", "Bearer one"), ("X-Tenant", "a"), ("X-Other", "no")])
            let sent = origin.lastHeaders("/landscape.jpg") ?? [:]
            #expect(sent["authorization"] == "Bearer one" && sent["x-tenant"] == "a" && sent["x-other"] == nil)
            _ = try await server.get(path, headers: [("Authorization", "Bearer two")])
            #expect(origin.lastHeaders("/landscape.jpg")?["authorization"] == "Bearer two" && origin.requests("/landscape.jpg") == 2)
            for _ in 0..<2 { _ = try await server.get(path, headers: [("Authorization", "Bearer two")]) }
            #expect(origin.requests("/landscape.jpg") == 2, "the same values: the cached answer")
        }
    }
}
