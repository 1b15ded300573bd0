import AsyncHTTPClient
import Foundation
import Testing
import TestSupport
import ServerTestSupport

/// CORS as imgproxy's `IMGPROXY_ALLOW_ORIGIN` has it: every answer to an
/// image URL (a miss, a hit on the connection's loop, an error) names the
/// origin and the methods, and the preflight is answered; nothing else
/// changes, and without the setting no answer has them.
@Suite(.offCooperativePool) struct CORSTests {
    @Test func imageAnswersNameTheAllowedOrigin() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.allowOrigin = "https://pages.example" }) { server, origin in
            let path = "/_/rs:fit:80:80/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            for answer in [try await server.get(path), try await server.get(path), try await server.get("/img\(path)"),
                           try await server.get("/_/rs:fit:80:80/plain/\(origin.url("/missing.jpg").absoluteString)@jpg"),
                           try await server.get("/_/nonsense:1/plain/x")] {
                #expect(answer.header("Access-Control-Allow-Origin") == "https://pages.example", "\(answer.status)")
                #expect(answer.header("Access-Control-Allow-Methods") == "GET, OPTIONS")
            }
            let preflight = try await server.send(path, method: .OPTIONS, headers: [("Origin", "https://pages.example"),
                                                                                   ("Access-Control-Request-Method", "GET")])
            #expect(preflight.status == .ok && preflight.header("Access-Control-Allow-Origin") == "https://pages.example")
            #expect(try await server.get("/health").header("Access-Control-Allow-Origin") == nil, "only image URLs")
        }
        try await TestServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let path = "/_/rs:fit:80:80/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            for answer in [try await server.get(path), try await server.get(path)] {
                #expect(answer.status == .ok && answer.header("Access-Control-Allow-Origin") == nil)
            }
        }
    }
}
