@testable import Darkroom
import Foundation
import TestSupport

/// A pipeline over a fresh cache folder, talking to a fresh origin that
/// serves the corpus.
struct PipelineFixture {
    let origin: OriginServer
    let cacheFolder: URL
    let pipeline: ImagePipeline

    static func make(_ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> PipelineFixture {
        let origin = try await OriginServer.start(serving: Corpus.root)
        let folder = try Fixtures.temporaryFolder("darkroom-cache")
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = DiskCache.Configuration(folder: folder)
        configuration.loader.retryDelay = .milliseconds(10)
        configure(&configuration)
        return PipelineFixture(origin: origin, cacheFolder: folder, pipeline: try ImagePipeline(configuration: configuration))
    }

    /// Another pipeline on the same cache folder, as after a restart.
    /// A new pipeline on the same disk cache, as after a restart: the first
    /// one's disk writes, which follow its answers, have landed.
    func restarted(_ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> ImagePipeline {
        await pipeline.waitForDiskWrites()
        var configuration = pipeline.configuration
        configure(&configuration)
        return try ImagePipeline(configuration: configuration)
    }

    func close() async {
        await pipeline.shutdown()
        await origin.stop()
        try? FileManager.default.removeItem(at: cacheFolder)
    }

    func request(_ path: String, _ operations: [ImageOperation] = [.resize(Resize(width: 300, height: 300)), .sepia(intensity: 0.8)],
                 priority: WorkPriority = .normal) -> ImageRequest {
        ImageRequest(url: origin.url(path), operations: operations, output: OutputOptions(format: .jpeg), priority: priority)
    }
}
