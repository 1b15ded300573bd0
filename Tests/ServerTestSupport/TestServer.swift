public import AsyncHTTPClient
import Darkroom
public import DarkroomServer
public import Foundation
import Hummingbird
public import Logging
public import NIOCore
public import NIOHTTP1
import ServiceLifecycle
import Synchronization
public import TestSupport

/// A real Darkroom server on a loopback port, and an HTTP client for it.
public struct TestServer: Sendable {
    public let base: String
    public let cacheFolder: URL
    /// The loopback port it listens on.
    public var port: Int { Int(base.split(separator: ":").last ?? "") ?? 0 }
    public let client: HTTPClient
    /// The port of `/metrics` when the configuration gives it an address of its own.
    public var metricsPort: Int?
    private let running: Task<Void, any Error>
    private let group: ServiceGroup
    /// Ends the client and the server when the last copy of this value is
    /// dropped without ``stop()`` (a test that threw halfway): a client
    /// dropped while running traps the whole test process.
    private let keeper: Keeper

    private final class Keeper: Sendable {
        let client: HTTPClient
        let group: ServiceGroup
        let stopped = Atomic<Bool>(false)
        init(client: HTTPClient, group: ServiceGroup) { (self.client, self.group) = (client, group) }
        deinit {
            guard !stopped.load(ordering: .acquiring) else { return }
            // The callback form keeps the client alive until it has shut down.
            client.shutdown { _ in }
            let group = self.group
            Task { await group.triggerGracefulShutdown() }
        }
    }

    private init(base: String, cacheFolder: URL, client: HTTPClient, running: Task<Void, any Error>, group: ServiceGroup) {
        (self.base, self.cacheFolder, self.client, self.running, self.group) = (base, cacheFolder, client, running, group)
        keeper = Keeper(client: client, group: group)
    }

    /// Starts a server with `configure` applied to a test configuration
    /// (port 0: the one the system picks; a fresh cache folder; no
    /// memory-pressure watching).
    ///
    /// - Parameter logger: the server's logger (default: errors only).
    public static func start(logger given: Logger? = nil, _ configure: (inout ServerConfiguration) -> Void = { _ in }) async throws -> TestServer {
        var configuration = ServerConfiguration()
        configuration.port = 0
        configuration.cacheFolder = try Fixtures.temporaryFolder("darkroom-server-cache")
        configuration.watchMemoryPressure = false
        configuration.limits.maxProcessingTime = unhurriedProcessingTime
        configure(&configuration)
        var logger = Logger(label: "darkroom-test")
        logger.logLevel = .error
        if let given { logger = given }
        let (ports, listening) = AsyncStream.makeStream(of: Int.self)
        let (metricsPorts, metricsListening) = AsyncStream.makeStream(of: Int.self)
        let app = try await buildApplication(configuration, logger: logger, onRunning: { port in
            listening.yield(port)
            listening.finish()
        }, onMetricsRunning: { port in
            metricsListening.yield(port)
            metricsListening.finish()
        })
        var group = ServiceGroupConfiguration(services: [.init(service: app)], logger: logger)
        group.maximumGracefulShutdownDuration = .seconds(5)
        let serviceGroup = ServiceGroup(configuration: group)
        let running = Task {
            defer { listening.finish() }
            try await serviceGroup.run()
        }
        guard let port = await ports.first(where: { _ in true }) else {
            _ = try await running.value
            throw TestServerError("the test server stopped before it listened")
        }
        var server = TestServer(base: "http://127.0.0.1:\(port)", cacheFolder: configuration.cacheFolder!,
                                client: HTTPClient(eventLoopGroupProvider: .singleton, configuration: Self.clientConfiguration),
                                running: running, group: serviceGroup)
        if configuration.metricsAddress != nil {
            server.metricsPort = await metricsPorts.first(where: { _ in true })
        }
        // A busy machine can take seconds to answer the first request.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if (try? await server.get("/health"))?.status == .ok { return server }
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                await server.stop()
                throw error
            }
        }
        // Stopped, its client shut down: a client dropped while running
        // traps the test process.
        await server.stop()
        throw TestServerError("the test server did not start in 120 s")
    }

    /// No redirects followed; and as many connections as a test's clients
    /// ask for at once (the default of 8 per host made a ninth request wait
    /// for a slow one, and time out waiting under load).
    static var clientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // Idle connections are dropped before the server's keep-alive
        // timeout (10 s) would close them: a request sent on a connection
        // the server is closing fails, as with any keep-alive client.
        configuration.connectionPool = .init(idleTimeout: .seconds(4), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        return configuration
    }

    public struct Answer: Sendable {
        public var status: HTTPResponseStatus
        public var headers: HTTPHeaders
        public var body: Data
        public func header(_ name: String) -> String? { headers.first(name: name) }
    }

    public func get(_ path: String, headers: [(String, String)] = [], timeout: Duration = .seconds(60)) async throws -> Answer {
        try await send(path, method: .GET, headers: headers, timeout: timeout)
    }

    public func send(_ path: String, method: HTTPMethod, headers: [(String, String)] = [], body: Data? = nil, timeout: Duration = .seconds(60)) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
        let collected = try await response.body.collect(upTo: 100 << 20)
        return Answer(status: response.status, headers: response.headers, body: Data(buffer: collected))
    }

    /// What the gallery's status strip shows: the queues' counts.
    public func status() async throws -> GalleryStatus {
        try JSONDecoder().decode(GalleryStatus.self, from: try await get("/api/status").body)
    }

    /// Polls the status until `condition` holds, for up to `seconds`.
    public func statusBecomes(_ seconds: Double = 120, _ condition: (GalleryStatus) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        return await polling {
            while ContinuousClock.now < deadline {
                if let status = try? await status(), condition(status) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return false
        }
    }

    public func stop() async {
        guard !keeper.stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        try? await client.shutdown()
        // Gracefully, as a real server stops: cancelling the group's task
        // tore connections down mid-write, which NIO traps on.
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        try? FileManager.default.removeItem(at: cacheFolder)
    }
}

extension TestServer {
    /// Runs `body` with a server that may fetch from a loopback origin
    /// serving `root`, and the origin; stops both however `body` ends.
    public static func withOrigin(serving root: URL, _ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
                           _ body: (TestServer, OriginServer) async throws -> Void) async throws {
        let origin = try await OriginServer.start(serving: root)
        let server = try await TestServer.start { c in
            c.trustedOrigins = [origin.url("/").absoluteString]
            configure(&c)
        }
        do { try await body(server, origin) } catch { await server.stop(); await origin.stop(); throw error }
        await server.stop()
        await origin.stop()
    }
}

extension Data {
    public init(buffer: ByteBuffer) {
        self.init(buffer.readableBytesView)
    }
}

/// Why a test server could not be started.
struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
