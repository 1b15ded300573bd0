import Darkroom
@testable import DarkroomServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
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
