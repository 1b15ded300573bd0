@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// Which sources the disk keeps: every one by default, or, with
/// `sourceMinUses` 2 (the server's choice), only those asked in a second
/// version; results are kept either way.
@Suite struct SourceKeepingTests {
    func onDisk(_ key: String, in pipeline: ImagePipeline) async -> Bool {
        await pipeline.waitForDiskWrites()
        return pipeline.diskCache?.entry(for: key) != nil
    }

    @Test func everySourceIsKeptByDefault() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            let request = f.request("/photos/Aqua.jpg")
            _ = try await f.pipeline.image(for: request)
            #expect(await onDisk(request.source.cacheKey, in: f.pipeline))
            #expect(await onDisk(request.processedKey, in: f.pipeline))
        }
    }

    @Test func aSourceAskedInOneVersionIsNotWrittenAndASecondVersionKeepsIt() async throws {
        let f = try await PipelineFixture.make { $0.sourceMinUses = 2 }
        try await cleaningUp({ await f.close() }) { () async throws in
            let first = f.request("/photos/Aqua.jpg")
            _ = try await f.pipeline.image(for: first)
            #expect(await !onDisk(first.source.cacheKey, in: f.pipeline), "one version: the source costs no disk write")
            #expect(await onDisk(first.processedKey, in: f.pipeline), "the result is kept")

            // No recent sources in memory here: the second version downloads again, and keeps it.
            let second = f.request("/photos/Aqua.jpg", [.grayscale])
            _ = try await f.pipeline.image(for: second)
            #expect(f.origin.requests("/photos/Aqua.jpg") == 2)
            #expect(await onDisk(first.source.cacheKey, in: f.pipeline))

            // From then on the disk answers, after a restart too.
            let again = try await f.restarted()
            _ = try await again.image(for: f.request("/photos/Aqua.jpg", [.resize(Resize(width: 64, height: 64))]))
            await again.shutdown()
            #expect(f.origin.requests("/photos/Aqua.jpg") == 2)
        }
    }

    @Test func recentSourcesInMemorySpareTheSecondDownload() async throws {
        let f = try await PipelineFixture.make {
            $0.sourceMinUses = 2
            $0.recentSourceBytes = 16 << 20
        }
        try await cleaningUp({ await f.close() }) { () async throws in
            let first = f.request("/photos/Garden.jpg")
            _ = try await f.pipeline.image(for: first)
            #expect(await !onDisk(first.source.cacheKey, in: f.pipeline))
            _ = try await f.pipeline.image(for: f.request("/photos/Garden.jpg", [.grayscale]))
            #expect(f.origin.requests("/photos/Garden.jpg") == 1, "the second version came from memory")
            #expect(await onDisk(first.source.cacheKey, in: f.pipeline), "and the second use kept it on disk")

            // Memory pressure empties the recent sources with the rest.
            f.pipeline.handleMemoryPressure()
            #expect(f.pipeline.recentSources?.statistics.count == 0)
        }
    }

    @Test func theUseCounterCountsEachKeyAndForgetsWhenASlotIsTaken() {
        let counter = UseCounter(slots: 1)
        #expect(counter.use("a") == 1)
        #expect(counter.use("a") == 2)
        // One slot: another key takes it, and "a" starts again.
        #expect(counter.use("b") == 1)
        #expect(counter.use("a") == 1)
    }
}
