import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// `http_server_active_requests` comes back to zero however requests end:
/// answered, or abandoned by a client that hung up.
struct ActiveRequestsTests {
    /// The active GETs, as /metrics shows them (its own request included).
    static func activeGETs(_ server: TestServer) async throws -> Double? {
        let text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        return text.split(separator: "\n")
            .first { $0.hasPrefix("http_server_active_requests{") && $0.contains("\"GET\"") }
            .flatMap { $0.split(separator: " ").last.flatMap { Double($0) } }
    }

    @Test func clientsThatHangUpMidRequestLeaveNoActiveRequestBehind() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { _ in }) { server, origin in
            origin.set(.delay(.seconds(1)), for: "/landscape.jpg")
            let port = Int(server.base.split(separator: ":").last!)!
            // 12 clients ask for images that take a second, and hang up
            // after a tenth of one.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for i in 0..<12 {
                    let path = "/img/_/w:\(60 + i)/plain/\(origin.url("/landscape.jpg").absoluteString)@png"
                    group.addTask { try await onOwnThread { try RawHTTP.hangUp(path, port: port, after: 0.1) } }
                }
                try await group.waitForAll()
            }
            // Answered requests too: a hit and a refusal.
            #expect(try await server.get("/img/_/w:60/plain/\(origin.url("/landscape.jpg").absoluteString)@png").status == .ok)
            #expect(try await server.get("/img/_/w:abc/plain/x").status.code == 404)

            // Only the /metrics request that reads the count is active.
            let deadline = ContinuousClock.now + .seconds(120)
            var active = try await Self.activeGETs(server)
            while active != 1, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                active = try await Self.activeGETs(server)
            }
            #expect(active == 1)
        }
    }
}
