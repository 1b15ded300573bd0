import ArgumentParser
import AsyncHTTPClient
import Foundation
import NIOCore

/// `darkroom health`: asks a running server's `/health`, for a container's
/// health check or a probe that runs a command; exit status 0 when it
/// answers 200, else 1.
struct HealthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "health",
        abstract: "Ask a running server's /health: exit status 0 if it answers 200."
    )

    @Option(help: "The server's address (default: http://127.0.0.1:$DARKROOM_PORT, port 8080 when unset).")
    var url: String?
    @Option(help: "Seconds to wait for the answer, 1 to 300.")
    var timeout = 3

    func validate() throws {
        guard (1...300).contains(timeout) else { throw ValidationError("--timeout \(timeout): expected 1 to 300 seconds") }
    }

    func run() async throws {
        let port = ProcessInfo.processInfo.environment["DARKROOM_PORT"].flatMap(Int.init) ?? 8080
        let base = url ?? "http://127.0.0.1:\(port)"
        let request = HTTPClientRequest(url: base.hasSuffix("/") ? base + "health" : base + "/health")
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(Int64(timeout)))
            let body = try await response.body.collect(upTo: 64 << 10)
            print(String(buffer: body))
            guard response.status == .ok else { throw ExitCode(1) }
        } catch let exit as ExitCode {
            throw exit
        } catch {
            Terminal.error("\(base)/health: \(error)")
            throw ExitCode(1)
        }
    }
}
