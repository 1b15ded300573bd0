import AsyncHTTPClient
import Foundation
import NIOCore
import TestSupport

/// Headless Chromium through chromedriver, spoken to in the W3C WebDriver
/// protocol (JSON over HTTP).
final class WebDriver: @unchecked Sendable {
    // Only used from the one test that owns it.
    private let driver: Process
    private let client: HTTPClient
    private let base: String
    private let session: String

    private init(driver: Process, client: HTTPClient, base: String, session: String) {
        self.driver = driver
        self.client = client
        self.base = base
        self.session = session
    }

    /// Runs `body` with a browser, and ends the browser, its chromedriver
    /// and its HTTP client on every path: a browser that does not start
    /// throws here and leaves nothing running (a client dropped before its
    /// shutdown traps the whole test process).
    static func with<T>(width: Int = 1000, height: Int = 760, _ body: (WebDriver) async throws -> T) async throws -> T {
        let browser = try await start(width: width, height: height)
        return try await cleaningUp({ await browser.quit() }) { try await body(browser) }
    }

    private static func start(width: Int, height: Int) async throws -> WebDriver {
        let port = try LoopbackPort.free()
        let driver = Process()
        driver.executableURL = URL(fileURLWithPath: "/usr/bin/chromedriver")
        driver.arguments = ["--port=\(port)"]
        // Chromium's profile and scoped folders go where the run's do.
        driver.environment = ScratchFolder.environment(temporaryFiles: try Fixtures.temporaryFolder("chromium"))
        driver.standardOutput = FileHandle.nullDevice
        driver.standardError = FileHandle.nullDevice
        try TiedProcess.run(driver)
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        let base = "http://127.0.0.1:\(port)"
        do {
            // chromedriver can take seconds to listen on a busy machine.
            var ready = false
            for _ in 0..<600 where !ready {
                ready = (try? await command(client, base, "GET", "/status")) != nil
                if !ready { try await Task.sleep(for: .milliseconds(100)) }
            }
            let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
                "browserName": "chrome",
                "goog:chromeOptions": [
                    "binary": "/usr/bin/chromium",
                    "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=\(width),\(height)"],
                ],
            ]]]
            // Chromium that starts slowly (a loaded machine) makes
            // chromedriver answer "session not created": ask again.
            var attempt = 0
            while true {
                attempt += 1
                do {
                    let answer = try await command(client, base, "POST", "/session", capabilities)
                    guard let value = answer["value"] as? [String: Any], let id = value["sessionId"] as? String else {
                        throw WebDriverError("no session: \(answer)")
                    }
                    return WebDriver(driver: driver, client: client, base: base, session: id)
                } catch where attempt < 3 {
                    continue
                }
            }
        } catch {
            await end(driver)
            try? await client.shutdown()
            throw error
        }
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
        _ = try? await command("DELETE", "/session/\(session)")
        await Self.end(driver)
        try? await client.shutdown()
    }

    /// chromedriver may linger after SIGTERM, and Process.waitUntilExit
    /// spins on the calling thread: kill it, and poll without blocking.
    private static func end(_ driver: Process) async {
        kill(driver.processIdentifier, SIGKILL)
        for _ in 0..<100 where driver.isRunning {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    private func command(_ method: String, _ path: String, _ body: [String: Any]? = nil) async throws -> [String: Any] {
        try await Self.command(client, base, method, path, body)
    }

    private static func command(_ client: HTTPClient, _ base: String, _ method: String, _ path: String,
                                _ body: [String: Any]? = nil) async throws -> [String: Any] {
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
