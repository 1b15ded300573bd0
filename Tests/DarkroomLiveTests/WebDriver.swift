import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport

/// Headless Chromium through chromedriver, spoken to in the W3C WebDriver
/// protocol (JSON over HTTP).
final class WebDriver: @unchecked Sendable {
    // Only used from the one test that owns it.
    private let driver: Process
    private let client = HTTPClient(eventLoopGroupProvider: .singleton)
    private let base: String
    private var session = ""

    init(width: Int = 1000, height: Int = 760) async throws {
        let port = try LoopbackPort.free()
        driver = Process()
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        // Chromium's profile and scoped folders go where the run's do.
        driver.environment = ScratchFolder.environment(temporaryFiles: try Fixtures.temporaryFolder("chromium"))
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try driver.run()
        base = "http://127.0.0.1:\(port)"
        var ready = false
        // chromedriver can take seconds to listen on a busy machine.
        for _ in 0..<600 where !ready {
            ready = (try? await command("GET", "/status")) != nil
            if !ready { try await Task.sleep(for: .milliseconds(100)) }
        }
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": [
                "binary": "/usr/bin/chromium",
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),\(height)"],
            ],
        ]]]
        let answer = try await command("POST", "/session", capabilities)
        guard let value = answer["value"] as? [String: Any], let id = value["sessionId"] as? String else {
            throw WebDriverError("no session: \(answer)")
        }
        session = id
    }

    struct WebDriverError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func open(_ url: String) async throws {
        _ = try await command("POST", "/session/\(session)/url", ["url": url])
    }

    /// Runs JavaScript in the page and returns its result.
    @discardableResult
    func run(_ script: String) async throws -> Any? {
        let answer = try await command("POST", "/session/\(session)/execute/sync", ["script": script, "args": []])
        return answer["value"]
    }

    func screenshot(to file: URL) async throws {
        let answer = try await command("GET", "/session/\(session)/screenshot")
        guard let text = answer["value"] as? String, let png = Data(base64Encoded: text) else { throw WebDriverError("no screenshot") }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try png.write(to: file)
    }

    func quit() async {
        if !session.isEmpty { _ = try? await command("DELETE", "/session/\(session)") }
        // chromedriver may linger after SIGTERM, and Process.waitUntilExit
        // spins on the calling thread: kill it, and poll without blocking.
        kill(driver.processIdentifier, SIGKILL)
        for _ in 0..<100 where driver.isRunning {
            try? await Task.sleep(for: .milliseconds(50))
        }
        try? await client.shutdown()
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: base + path)
        request.method = .init(rawValue: method)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 50 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(bytes.readableBytesView)) as? [String: Any] ?? [:]
        if response.status.code >= 400 { throw WebDriverError("\(method) \(path): \(json)") }
        return json
    }
}
