import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import TestSupport
import DarkroomImaging

/// `darkroom serve` in a 512 MiB memory cgroup, as a small container runs
/// it, answering hostile files and ordinary photos at once, while a cached
/// image is asked again and again: it is never killed, every hostile
/// request ends within the time limit and a second, and ordinary requests
/// and cache hits keep being answered.
@Suite(.serialized) struct MemoryPressureLoadTests {
    static let limit = 512 << 20
    /// A processing limit no busy machine reaches with these shapes: the
    /// subject here is memory, and every hostile shape has its designed
    /// answer (a refusal from its structure, or its image) well inside it.
    static let seconds = 120
    static let loadFor: Duration = .seconds(15)

    enum Kind: String { case hostile, ordinary, hit }

    struct Record: Sendable {
        var kind: Kind
        var path: String
        var status: UInt
        var took: Duration
    }

    static let hostile = [
        ("many-scans.jpg", "rs:fit:200:200"), ("scans-at-limit.jpg", "rs:fit:200:200"), ("coefficient-hog.jpg", "rs:fit:200:200"),
        ("empty-refinements.jpg", "rs:fit:200:200/f:webp"), ("flat-8192x6000.jpg", "rs:fill:8192:1"), ("tall-1000x49000.jpg", "rs:force:1000:2"),
        ("inflate-bomb.png", "rs:fit:200:200"), ("frame-bomb.gif", "rs:fit:200:200/f:gif"), ("frame-bomb.gif", "rs:fit:200:200/f:jpg"),
        // The output side: one pixel extended to the result limit in every
        // format (one of these as AVIF got the server OOM-killed in 1 s).
        ("one-pixel.png", "rs:fit:8192:8192:0:1/f:avif"), ("one-pixel.png", "rs:fit:8192:8192:0:1/f:webp"),
        ("one-pixel.png", "rs:fit:8192:8192:0:1/f:gif"), ("one-pixel.png", "rs:fit:8192:8192:0:1/f:png"),
        ("one-pixel.png", "rs:fit:8192:8192:0:1/f:jpg"), ("interlaced-16bit.png", "rs:fit:200:200"),
        ("many-frames.webp", "rs:fit:100:100"), ("many-frames.gif", "rs:fit:100:100/f:gif"),
    ]

    @Test(.enabled(if: Variants.measuresMemory, "a memory cgroup's limit means nothing under a sanitizer's shadow"))
    func theServerLivesUnderHostileAndOrdinaryLoad() async throws {
        let shapes = try await HostileShapes.folder()
        let folder = try Fixtures.temporaryFolder("darkroom-pressure")
        defer { try? FileManager.default.removeItem(at: folder) }
        let hostileOrigin = try await OriginServer.start(serving: shapes)
        let photoOrigin = try await OriginServer.start(serving: Corpus.photosFolder)
        try await cleaningUp({ await hostileOrigin.stop(); await photoOrigin.stop() }) { () async throws in
            try #require(!Corpus.photos.isEmpty, "the corpus is missing: \(Corpus.photosFolder.path)")

            let arguments = ["serve", "--port", "0", "--cache-dir", folder.appendingPathComponent("cache").path,
                             "--allow-private-networks", "--max-processing-seconds", "\(Self.seconds)"]
            let log = folder.appendingPathComponent("serve.log")
            // A cgroup the kernel enforces, where this machine lets the test
            // make one; otherwise the peak resident size is held to the limit.
            let cgroup = MemoryCgroup.make(limit: Self.limit)
            #expect(cgroup != nil || !Variants.cgroupsRequired, "this run requires the memory cgroup the machine did not allow")
            defer { cgroup?.remove() }
            let server = try cgroup.map { try $0.start(DarkroomProcess.binary, arguments, log: log) }
                ?? DarkroomProcess.start(arguments, log: log)
            let port = try await ServingProcess.listening(server, log: log).port
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let get: @Sendable (String) async throws -> UInt = { path in
                let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(600))
                _ = try await response.body.collect(upTo: 20 << 20)
                return response.status.code
            }
            do {
                try #require(await eventuallyAsync(60) { (try? await get("/health")) == 200 }, "the server did not start: \(Self.tail(log))")
                let hitPath = "/img/_/rs:fit:300:300/plain/\(plainSource(photoOrigin.url("/Aqua.jpg")))"
                try #require(try await get(hitPath) == 200)

                let records = Records()
                let deadline = ContinuousClock.now + Self.loadFor
                @Sendable func loop(_ kind: Kind, _ next: @Sendable @escaping (Int) -> String) async throws {
                    var round = 0
                    while ContinuousClock.now < deadline {
                        let path = next(round)
                        round += 1
                        let started = ContinuousClock.now
                        let status = try await get(path)
                        let record = Record(kind: kind, path: path, status: status, took: ContinuousClock.now - started)
                        records.append(record)
                        if kind == .hit { try await Task.sleep(for: .milliseconds(50)) }
                    }
                }
                let hostileURLs = try Self.hostile.map { (file, options) in (plainSource(hostileOrigin.url("/\(file)")), options) }
                let photos = Corpus.photos.map { plainSource(photoOrigin.url("/\($0.lastPathComponent)")) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for lane in 0..<2 {
                        group.addTask {
                            try await loop(.hostile) { round in
                                let (source, options) = hostileURLs[(round * 2 + lane) % hostileURLs.count]
                                // Another version each time, so nothing is answered from the cache.
                                return "/img/_/\(options)/q:\(50 + round % 40)/plain/\(source)"
                            }
                        }
                        group.addTask {
                            try await loop(.ordinary) { round in
                                "/img/_/rs:fit:\(200 + round * 7 + lane):\(200 + round * 7 + lane)/plain/\(photos[(round + lane * 5) % photos.count])"
                            }
                        }
                    }
                    group.addTask { try await loop(.hit) { _ in hitPath } }
                    try await group.waitForAll()
                }

                let all = records.all
                for record in all where record.kind == .hostile {
                    #expect([200, 422, 503].contains(record.status), "\(record.path): \(record.status)")
                    // Within the time limit and a second, as promised.
                    #expect(record.took < .seconds(Self.seconds + 1), "\(record.path) took \(record.took)")
                }
                let ordinary = all.filter { $0.kind == .ordinary }, hits = all.filter { $0.kind == .hit }
                #expect(!ordinary.isEmpty && ordinary.allSatisfy { $0.status == 200 }, "\(ordinary.map { "\($0.status) \($0.path)" })")
                #expect(hits.count >= 10 && hits.allSatisfy { $0.status == 200 }, "\(hits.count) hits, \(hits.filter { $0.status != 200 }.count) not 200")
                // Hits never wait for a processing slot: one that queued behind
                // the hostile and ordinary runs would wait for several of them.
                // The bound is fifty times a hit's time on an idle machine, for
                // a machine that is busy besides.
                let slowest = hits.map(\.took).sorted().dropLast(hits.count / 100).last ?? .zero
                #expect(slowest < .seconds(5), "cache hits' p99 \(slowest)")

                #expect(server.isRunning, "the server ended: \(Self.tail(log))")
                #expect(try await get("/health") == 200)
                if let cgroup {
                    #expect(cgroup.oomKills == 0, "the kernel killed for memory \(cgroup.oomKills) times")
                } else if let peak = ProcessMemory.peakAndCurrent(of: server.processIdentifier)?.peak {
                    #expect(peak <= Self.limit, "peak resident size \(peak >> 20) MiB")
                }
            } catch {
                await DarkroomProcess.stop(server)
                try? await client.shutdown()
                throw error
            }
            await DarkroomProcess.stop(server)
            try await client.shutdown()
        }
    }

    final class Records: Sendable {
        private let records = Locked<[Record]>([])
        func append(_ record: Record) { records.withLock { $0.append(record) } }
        var all: [Record] { records.withLock { $0 } }
    }

    static func tail(_ log: URL) -> String {
        String(((try? String(contentsOf: log, encoding: .utf8)) ?? "").suffix(2000))
    }
}
