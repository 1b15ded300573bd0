@testable import Darkroom
import Foundation
import Synchronization
import Testing
import TestSupport

struct FixedReading: MemoryPressureSource {
    let reading: MemoryReading
    func read() -> MemoryReading { reading }
}

@Suite struct MemoryPressureTests {
    @Test func parsesThePressureFile() {
        let text = "some avg10=12.50 avg60=3.00 avg300=1.00 total=123456\nfull avg10=2.00 avg60=0.00 avg300=0.00 total=1\n"
        #expect(LinuxMemoryPressureSource.parseSomeAverage10(text) == 12.5)
        #expect(LinuxMemoryPressureSource.parseSomeAverage10("nonsense") == nil)
    }

    @Test func readsACgroupFolder() throws {
        let folder = try Fixtures.temporaryFolder("cgroup")
        defer { try? FileManager.default.removeItem(at: folder) }
        try "950000000\n".write(to: folder.appendingPathComponent("memory.current"), atomically: true, encoding: .utf8)
        try "1000000000\n".write(to: folder.appendingPathComponent("memory.max"), atomically: true, encoding: .utf8)
        try "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n".write(to: folder.appendingPathComponent("memory.pressure"), atomically: true, encoding: .utf8)
        let reading = LinuxMemoryPressureSource(cgroupFolder: folder).read()
        #expect(reading == MemoryReading(usage: 950_000_000, limit: 1_000_000_000, stallPercent: 0))
        #expect(reading.fractionUsed == 0.95)
    }

    /// A host whose memory controller is still on cgroup v1: its own file
    /// names, and "no limit" written as a number near 2^63.
    @Test func readsAVersion1MemoryFolder() throws {
        let folder = try Fixtures.temporaryFolder("cgroup-v1")
        defer { try? FileManager.default.removeItem(at: folder) }
        try "400000000\n".write(to: folder.appendingPathComponent("memory.usage_in_bytes"), atomically: true, encoding: .utf8)
        try "536870912\n".write(to: folder.appendingPathComponent("memory.limit_in_bytes"), atomically: true, encoding: .utf8)
        let reading = LinuxMemoryPressureSource(cgroupFolder: folder, version1: true).read()
        #expect(reading.usage == 400_000_000 && reading.limit == 536_870_912)
        try "9223372036854771712\n".write(to: folder.appendingPathComponent("memory.limit_in_bytes"), atomically: true, encoding: .utf8)
        #expect(LinuxMemoryPressureSource(cgroupFolder: folder, version1: true).read().limit == nil)
    }

    @Test func noLimitMeansNoFraction() throws {
        let folder = try Fixtures.temporaryFolder("cgroup")
        defer { try? FileManager.default.removeItem(at: folder) }
        try "123\n".write(to: folder.appendingPathComponent("memory.current"), atomically: true, encoding: .utf8)
        try "max\n".write(to: folder.appendingPathComponent("memory.max"), atomically: true, encoding: .utf8)
        #expect(LinuxMemoryPressureSource(cgroupFolder: folder).read().fractionUsed == nil)
    }

    /// What the real source reads agrees with the cgroup's own files,
    /// where this machine has them, and is sane where it does not.
    @Test func theRealSourceReadsThisMachine() throws {
        let reading = LinuxMemoryPressureSource().read()
        if let usage = reading.usage { #expect(usage > 0) }
        if let usage = reading.usage, let limit = reading.limit { #expect(limit >= usage / 2, "a limit far under the usage was misread") }
        if let stall = reading.stallPercent { #expect((0...100).contains(stall)) }
        if let text = try? String(contentsOfFile: "/sys/fs/cgroup/memory.max", encoding: .utf8) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(reading.limit == Int(value), "memory.max says \(value)")
        }
        if FileManager.default.isReadableFile(atPath: "/sys/fs/cgroup/memory.current") {
            #expect(reading.usage != nil, "memory.current is there to read")
        }
    }

    @Test(arguments: [
        (MemoryReading(usage: 95, limit: 100), true),
        (MemoryReading(usage: 50, limit: 100), false),
        (MemoryReading(stallPercent: 25), true),
        (MemoryReading(stallPercent: 1), false),
        (MemoryReading(), false),
    ])
    func decidesPressureByThresholds(reading: MemoryReading, pressure: Bool) {
        let reactions = Atomic<Int>(0)
        let monitor = MemoryPressureMonitor(source: FixedReading(reading: reading)) { _ in reactions.add(1, ordering: .relaxed) }
        #expect(monitor.check() == pressure)
        let count = reactions.load(ordering: .relaxed)
        #expect(count == (pressure ? 1 : 0))
    }

    @Test func underPressureThePipelineEmptiesItsMemoryCache() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            _ = try await f.pipeline.image(for: f.request("/photos/Aqua.jpg"))
            #expect(f.pipeline.memoryCache.statistics.count == 1)
            let monitor = MemoryPressureMonitor(pipeline: f.pipeline, source: FixedReading(reading: MemoryReading(usage: 99, limit: 100)), interval: .milliseconds(10))
            let watching = Task { await monitor.run() }
            #expect(await eventually { f.pipeline.memoryCache.statistics.count == 0 })
            watching.cancel()
        }
    }
}
