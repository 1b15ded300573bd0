@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// imgproxy's `IMGPROXY_SECRET`: with a secret set, an image or info
/// request without `Authorization: Bearer SECRET` is refused, whether the
/// image is made, cached on disk, or held in memory (the hits answered
/// before the router).
@Suite(.offCooperativePool) struct SecretTests {
    @Test func aRequestWithoutTheSecretIsRefusedEvenForAHit() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.secret = ServerSecret("s3cr3t") }) { server, origin in
            let path = "/_/rs:fit:80:80/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            let bearer = [("Authorization", "Bearer s3cr3t")]
            #expect(try await server.get(path).status == .forbidden, "before it is made")
            let made = try await server.get(path, headers: bearer)
            #expect(made.status == .ok)
            // Now a memory hit: still refused without the secret, and with a wrong one.
            #expect(try await server.get(path, headers: bearer).status == .ok)
            for headers in [[], [("Authorization", "Bearer s3cr3")], [("Authorization", "Basic czNjcjN0")]] {
                let refused = try await server.get(path, headers: headers)
                #expect(refused.status == .forbidden && refused.body != made.body, "\(headers)")
            }
            let info = "/info/_/plain/\(origin.url("/landscape.jpg").absoluteString)"
            #expect(try await server.get(info).status == .forbidden)
            #expect(try await server.get(info, headers: bearer).status == .ok)
            #expect(try await server.get("/health").status == .ok, "health needs no secret")
        }
    }
}
