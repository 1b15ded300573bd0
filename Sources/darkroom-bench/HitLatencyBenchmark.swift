import Darkroom
import Foundation

/// Memory-cache hit latency through the pipeline, first idle, then while
/// both cores are kept busy by cold filter work through the same pipeline.
enum HitLatencyBenchmark {
    static func run(hits: Int) async throws {
        let corpus = URL(fileURLWithPath: ProcessInfo.processInfo.environment["DARKROOM_CORPUS"] ?? "../shared/corpus")
            .appendingPathComponent("photos")
        let photos = try FileManager.default.contentsOfDirectory(atPath: corpus.path).filter { $0.hasSuffix(".jpg") }.sorted()
            .map { try Data(contentsOf: corpus.appendingPathComponent($0)) }
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        let pipeline = try ImagePipeline(configuration: configuration)
        let options = ProcessingOptions(operations: [.resize(Resize(width: 600, height: 600)), .sepia(intensity: 0.8)])
        let warm = ImageRequest(source: .data(photos[0], key: "warm"), options: options)
        _ = try await pipeline.image(for: warm)

        let idle = try await measure(hits, pipeline, warm)

        // Cold work: every photo under ever new keys, so nothing is cached,
        // with more waiting than the filtration queue runs at once.
        let load = Task {
            var round = 0
            while !Task.isCancelled {
                await withTaskGroup(of: Void.self) { group in
                    for (i, data) in photos.enumerated() {
                        let request = ImageRequest(source: .data(data, key: "cold-\(round)-\(i)"), options: options)
                        group.addTask { _ = try? await pipeline.image(for: request) }
                    }
                }
                round += 1
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        let busyBefore = pipeline.filtrationQueue.counts
        let loaded = try await measure(hits, pipeline, warm)
        let busyAfter = pipeline.filtrationQueue.counts
        load.cancel()
        await pipeline.shutdown()

        print("hit-latency: \(hits) memory-cache hits through ImagePipeline.image(for:)")
        print(String(format: "  idle:                     p50 %7.1f µs   p99 %7.1f µs", idle.p50, idle.p99))
        print(String(format: "  both cores filtering:     p50 %7.1f µs   p99 %7.1f µs", loaded.p50, loaded.p99))
        print("  filtration queue while measuring: running \(busyBefore.running)/\(pipeline.filtrationQueue.maxConcurrent), waiting \(busyBefore.waiting); \(busyAfter.finished - busyBefore.finished) cold images made meanwhile")
    }

    /// Times `count` hits, one every 200 µs or so, so the samples spread over
    /// seconds of filtering rather than a burst.
    static func measure(_ count: Int, _ pipeline: ImagePipeline, _ request: ImageRequest) async throws -> (p50: Double, p99: Double) {
        var samples: [Double] = []
        samples.reserveCapacity(count)
        for _ in 0..<count {
            try await Task.sleep(for: .microseconds(200))
            let start = ContinuousClock.now
            let response = try await pipeline.image(for: request)
            samples.append((ContinuousClock.now - start).seconds * 1e6)
            precondition(response.cacheType == .memory)
        }
        samples.sort()
        return (samples[count / 2], samples[count * 99 / 100])
    }
}
