import Foundation
import Testing
import TestSupport
import ServerTestSupport

/// What the origin is asked with, as an imgproxy deployment sets it: its
/// `User-Agent` (`IMGPROXY_USER_AGENT`) and how many redirects a source may
/// take (`IMGPROXY_MAX_REDIRECTS`).
@Suite(.offCooperativePool) struct OriginRequestTests {
    @Test func theUserAgentAndTheRedirectLimitAreTheServers() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { c in
            c.userAgent = "photo-service/2.1"
            c.maxRedirects = 2
        }) { server, origin in
            origin.set(.redirect("/hop-2"), for: "/hop-1")
            origin.set(.redirect("/landscape.jpg"), for: "/hop-2")
            origin.set(.redirect("/hop-1"), for: "/hop-0")
            let twice = try await server.get("/_/w:50/plain/\(origin.url("/hop-1").absoluteString)@jpg")
            #expect(twice.status == .ok, "\(String(decoding: twice.body, as: UTF8.self))")
            #expect(origin.lastHeaders("/landscape.jpg")?["user-agent"] == "photo-service/2.1")
            #expect(origin.lastHeaders("/hop-1")?["user-agent"] == "photo-service/2.1", "every hop is asked with it")
            let thrice = try await server.get("/_/w:50/plain/\(origin.url("/hop-0").absoluteString)@jpg")
            #expect(thrice.status.code >= 400 && String(decoding: thrice.body, as: UTF8.self).contains("redirected more than 2 times"),
                    "\(thrice.status) \(String(decoding: thrice.body, as: UTF8.self))")
        }
    }
}
