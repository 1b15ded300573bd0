import AsyncHTTPClient
import Foundation
import NIOCore

/// GETs from a `darkroom serve` process that may still be starting: a
/// refused connection is tried again until the server listens (up to two
/// minutes, as a debug build under parallel tests can take).
struct StartingServer {
    let client: HTTPClient
    let port: Int

    func get(_ path: String, timeout: TimeAmount = .seconds(120)) async throws -> (status: UInt, body: Data) {
        let deadline = ContinuousClock.now + .seconds(120)
        while true {
            do {
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: timeout)
                return (response.status.code, Data(buffer: try await response.body.collect(upTo: 64 << 20)))
            } catch where ContinuousClock.now < deadline && "\(error)".contains("connect") {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }
}
