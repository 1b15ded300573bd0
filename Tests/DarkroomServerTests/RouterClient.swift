import Darkroom
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServerTestSupport
import TestSupport

/// Runs `test` against the server's router, built as `darkroom serve`
/// builds it for `configure`d settings (no disk cache).
func withRouter(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
    try await withRoutes(configure) { _, client in try await test(client) }
}

/// ``withRouter(_:_:)``, the test also handed the image routes the router
/// serves: the front door's hit path must be given the same object.
func withRoutes(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                _ test: @escaping @Sendable (ImageRoutes, any TestClientProtocol) async throws -> Void) async throws {
    var configuration = ServerConfiguration()
    configuration.limits.maxProcessingTime = unhurriedProcessingTime
    configure(&configuration)
    let metrics = ServerMetrics()
    var pipelineSettings = pipelineConfiguration(for: configuration, metrics: metrics)
    pipelineSettings.diskCache = nil
    let pipeline = try ImagePipeline(configuration: pipelineSettings)
    let books = try Fixtures.temporaryFolder("darkroom-router-books")
    try await cleaningUp({
        await pipeline.shutdown()
        try? FileManager.default.removeItem(at: books)
    }) {
        // The image routes and connection limits passed in, as the server
        // passes them, so that /metrics has every series the server's has.
        let logger = Logger(label: "darkroom-test")
        let connections = ConnectionWatch()
        let routes = ImageRoutes(pipeline: pipeline, configuration: configuration, connections: connections, logger: logger)
        let router = buildRouter(configuration, pipeline: pipeline, gallery: Gallery(list: try Gallery.sampleList(), pipeline: pipeline),
                                 books: BookJobs(folder: books, lifetime: .seconds(60)), logger: logger, metrics: metrics,
                                 connections: connections, images: routes, connectionLimits: ConnectionLimits(configuration.connections))
        try await Application(router: router).test(.router) { client in try await test(routes, client) }
    }
}

/// The router, asked as a client asks a live server (status, header
/// fields, body), for tests of what the routes answer rather than of
/// sockets: no port, no connection, no event-loop hit path.
struct RoutedServer: Sendable {
    let client: any TestClientProtocol

    struct Answer: Sendable {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        var body: Data
        func header(_ name: String) -> String? { HTTPField.Name(name).flatMap { headers[$0] } }
    }

    func get(_ path: String, headers: [(String, String)] = []) async throws -> Answer {
        try await send(path, method: .get, headers: headers)
    }

    /// Sends a request of any method, with an optional body.
    func send(_ path: String, method: HTTPRequest.Method, headers: [(String, String)] = [], body: Data? = nil) async throws -> Answer {
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let response = try await client.execute(uri: path, method: method, headers: fields, body: body.map { ByteBuffer(bytes: $0) })
        return Answer(status: response.status, headers: response.headers, body: Data(buffer: response.body))
    }

    /// A GET that fails with ``NoAnswer`` when the router has not answered within `limit`.
    func get(_ path: String, headers: [(String, String)] = [], within limit: Duration) async throws -> Answer {
        try await withThrowingTaskGroup(of: Answer?.self) { group in
            group.addTask { try await get(path, headers: headers) }
            group.addTask {
                try await Task.sleep(for: limit)
                return nil
            }
            defer { group.cancelAll() }
            guard let answer = try await group.next() ?? nil else { throw NoAnswer(path: path, limit: limit) }
            return answer
        }
    }

    /// No answer within a ``get(_:headers:within:)``'s limit.
    struct NoAnswer: Error, CustomStringConvertible {
        let path: String
        let limit: Duration
        var description: String { "no answer to \(path) within \(limit)" }
    }

    /// What the gallery's status strip shows: the queues' counts.
    func status() async throws -> GalleryStatus {
        try JSONDecoder().decode(GalleryStatus.self, from: try await get("/api/status").body)
    }

    /// Polls the status until `condition` holds, for up to `seconds`.
    func statusBecomes(_ seconds: Double = 120, _ condition: (GalleryStatus) -> Bool) async -> Bool {
        await eventuallyAsync(seconds) { (try? await status()).map(condition) ?? false }
    }

    /// Runs `test` with the router for `configure`d settings, no origin.
    static func with(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                     _ test: @escaping @Sendable (RoutedServer) async throws -> Void) async throws {
        try await withRouter(configure) { client in try await test(RoutedServer(client: client)) }
    }

    /// Runs `test` with the router, which may fetch from a loopback origin
    /// serving `root`, and the origin; stops both however `test` ends.
    static func withOrigin(serving root: URL, _ configure: (inout ServerConfiguration) -> Void = { _ in },
                           _ test: @escaping @Sendable (RoutedServer, OriginServer) async throws -> Void) async throws {
        let origin = try await OriginServer.start(serving: root)
        do {
            try await withRouter({ c in
                c.trustedOrigins = [origin.url("/").absoluteString]
                configure(&c)
            }) { client in
                try await test(RoutedServer(client: client), origin)
            }
        } catch {
            await origin.stop()
            throw error
        }
        await origin.stop()
    }
}
