import AsyncHTTPClient
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import Testing
import TestSupport

/// The front door's budgets, seen from outside a `darkroom serve` process
/// as an operator sees them: its resident memory and its cache folder.
/// Before these budgets, a flood like this one (refused sources behind
/// long distinct URLs and Accept headers) grew a server by about 410 KB a
/// request and wrote a failure record per request into the disk cache.
@Suite(.serialized) struct FrontDoorMemoryTests {
    static func files(in folder: URL) -> Int {
        (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects.count) ?? 0
    }

    /// A loopback connection that sends nothing (a slowloris client).
    static func idleConnection(port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        guard LoopbackPort.connect(fd, to: port) else { close(fd); return nil }
        return fd
    }

    @Test func aFloodOfRefusedLongURLsMovesMemoryAndDiskByNoMoreThanTheBudgets() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-front-door")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = folder.appendingPathComponent("cache")
        let server = try await ServingProcess.start(["serve", "--cache-dir", cache.path, "--memory-cache-mb", "16"],
                                                    log: folder.appendingPathComponent("serve.log"))
        let (process, port) = (server.process, server.port)
        try await cleaningUp({ await server.stop() }) { () async throws in
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool = .init(idleTimeout: .seconds(4), concurrentHTTP1ConnectionsPerHostSoftLimit: 16)
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                let base = "http://127.0.0.1:\(port)"
                @Sendable func status(_ path: String, headers: [(String, String)] = []) async throws -> UInt {
                    var request = HTTPClientRequest(url: base + path)
                    for (name, value) in headers { request.headers.add(name: name, value: value) }
                    let response = try await client.execute(request, timeout: .seconds(300))
                    _ = try await response.body.collect(upTo: 20 << 20)
                    return response.status.code
                }
                let up = await eventuallyAsync(120) { (try? await status("/health")) == 200 }
                try #require(up, "the server did not start")
                let hit = "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@jpg"
                #expect(try await status(hit) == 200)

                // Warmed up: a first round of the flood, so that threads, arenas
                // and the caches' structures exist before the baseline.
                let padding = String(repeating: "a", count: 8_000)
                let accept = (0..<200).map { "x-\($0)/y" }.joined(separator: ",")
                @Sendable func refused(_ index: Int) async throws -> UInt {
                    try await status("/img/_/rs:fit:20:20/plain/http://10.0.0.1/\(index)\(padding).jpg",
                                     headers: [("Accept", "image/webp,\(accept),z/\(index)")])
                }
                for index in 0..<200 { #expect(try await refused(index) == 404) }
                let filesBefore = Self.files(in: cache)
                let before = SoakTests.residentKiB(process.processIdentifier)

                // 200 connections that never send a byte, 300 viewers asked for
                // (past the 256 allowed), and 2,000 more refused URLs from 8 clients.
                let idle = (0..<200).compactMap { _ in Self.idleConnection(port: port) }
                defer { idle.forEach { close($0) } }
                var viewers: [UInt: Int] = [:]
                for _ in 0..<300 {
                    let response = try await client.execute({ var r = HTTPClientRequest(url: base + "/api/viewers"); r.method = .POST; return r }(),
                                                            timeout: .seconds(300))
                    _ = try await response.body.collect(upTo: 1 << 20)
                    viewers[response.status.code, default: 0] += 1
                }
                #expect(viewers[201, default: 0] + viewers[200, default: 0] > 0 && viewers[429, default: 0] > 0, "\(viewers)")
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            for index in stride(from: 200 + worker, to: 2_200, by: 8) {
                                let code = try await refused(index)
                                #expect(code == 404, "\(index): \(code)")
                            }
                        }
                    }
                    // Meanwhile a cache hit and /health answer.
                    group.addTask {
                        for _ in 0..<20 {
                            let hitStatus = try await status(hit), healthStatus = try await status("/health")
                            #expect(hitStatus == 200 && healthStatus == 200)
                        }
                    }
                    try await group.waitForAll()
                }
                let after = SoakTests.residentKiB(process.processIdentifier)
                // The budgets: failures 4 MiB, parsed URLs 8 MiB, viewers and
                // idle connections a few MiB; 2,000 requests at the old 410 KB each
                // would be 800 MiB.
                let grownMiB = (after - before) / 1024
                #expect(!Variants.measuresMemory || grownMiB < 96, "resident memory grew by \(grownMiB) MiB (\(before / 1024) -> \(after / 1024) MiB)")
                #expect(Self.files(in: cache) == filesBefore, "the flood wrote to the disk cache")
                #expect(try await status("/health") == 200)
                print("front door flood: resident \(before / 1024) -> \(after / 1024) MiB; viewers \(viewers); \(idle.count) idle connections")
            }
        }
    }
}
