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
    var configuration = ServerConfiguration()
    configuration.limits.maxProcessingTime = unhurriedProcessingTime
    configure(&configuration)
    let metrics = ServerMetrics()
    var pipelineSettings = pipelineConfiguration(for: configuration, metrics: metrics)
    pipelineSettings.diskCache = nil
    let pipeline = try ImagePipeline(configuration: pipelineSettings)
    let books = try Fixtures.temporaryFolder("darkroom-router-books")
    let router = buildRouter(configuration, pipeline: pipeline, gallery: Gallery(list: try Gallery.sampleList(), pipeline: pipeline),
                             books: BookJobs(folder: books, lifetime: .seconds(60)), logger: Logger(label: "darkroom-test"), metrics: metrics)
    do {
        try await Application(router: router).test(.router, test)
    } catch {
        await pipeline.shutdown()
        throw error
    }
    await pipeline.shutdown()
    try? FileManager.default.removeItem(at: books)
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
        var fields = HTTPFields()
        for (name, value) in headers { fields.append(HTTPField(name: HTTPField.Name(name)!, value: value)) }
        let response = try await client.execute(uri: path, method: .get, headers: fields)
        return Answer(status: response.status, headers: response.headers, body: Data(buffer: response.body))
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
