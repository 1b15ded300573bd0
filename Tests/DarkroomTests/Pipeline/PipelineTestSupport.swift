@testable import Darkroom
import Foundation
import TestSupport

/// A pipeline over a fresh cache folder, talking to a fresh origin that
/// serves the corpus.
struct PipelineFixture {
    let origin: OriginServer
    let cacheFolder: URL
    let pipeline: ImagePipeline

    /// - Parameter clock: the time the pipeline's memory of failures reads
    ///   (the system's when nil).
    static func make(clock: TestClock? = nil, _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> PipelineFixture {
        let origin = try await OriginServer.start(serving: Corpus.root)
        let folder = try Fixtures.temporaryFolder("darkroom-cache")
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = DiskCache.Configuration(folder: folder)
        configuration.loader.retryDelay = .milliseconds(10)
        configure(&configuration)
        return PipelineFixture(origin: origin, cacheFolder: folder, pipeline: try pipeline(configuration, clock: clock))
    }

    /// A pipeline whose memory of failures reads `clock` (the system's when nil).
    static func pipeline(_ configuration: ImagePipeline.Configuration, clock: TestClock?) throws(DarkroomError) -> ImagePipeline {
        guard let clock else { return try ImagePipeline(configuration: configuration) }
        return try ImagePipeline(configuration: configuration, now: { clock.date })
    }

    /// A new pipeline on the same disk cache, as after a restart: the first
    /// one's disk writes, which follow its answers, have landed.
    func restarted(clock: TestClock? = nil, _ configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) async throws -> ImagePipeline {
        await pipeline.waitForDiskWrites()
        var configuration = pipeline.configuration
        configure(&configuration)
        return try Self.pipeline(configuration, clock: clock)
    }

    func close() async {
        await pipeline.shutdown()
        await origin.stop()
        try? FileManager.default.removeItem(at: cacheFolder)
    }

    func request(_ path: String, _ operations: [ImageOperation] = [.resize(Resize(width: 300, height: 300)), .sepia(intensity: 0.8)],
                 priority: WorkPriority = .normal) -> ImageRequest {
        var request = ImageRequest(url: origin.url(path), operations: operations, output: OutputOptions(format: .jpeg), priority: priority)
        request.options = request.options.unhurried
        return request
    }
}
