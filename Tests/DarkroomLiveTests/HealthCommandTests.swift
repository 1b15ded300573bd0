import Foundation
import ServerTestSupport
import Testing
import TestSupport

/// `darkroom health`, the container's health check: 0 when the server
/// answers /health with 200, 1 when nothing answers.
@Suite struct HealthCommandTests {
    @Test func zeroForAServerThatAnswersOneForNone() async throws {
        let server = try await TestServer.start()
        let healthy = try await DarkroomProcess.run(["health", "--url", server.base, "--timeout", "120"])
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(healthy.stdout.contains("\"status\":\"ok\""), "\(healthy.stdout)")
        // The port from DARKROOM_PORT when no URL is given, as in the image.
        // (Timeouts far above the answer's time: the subject is the status.)
        let byPort = try await DarkroomProcess.run(["health", "--timeout", "120"], environment: ["DARKROOM_PORT": "\(server.port)"])
        #expect(byPort.status == 0, "\(byPort.stderr)")
        await server.stop()

        // The same port, nothing listening any more: the client tries
        // to connect until its timeout, then fails.
        let gone = try await DarkroomProcess.run(["health", "--url", server.base, "--timeout", "2"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("/health"), "\(gone.stderr)")
        #expect(try await DarkroomProcess.run(["health", "--timeout", "0"]).status == 2, "a usage error")
    }
}
