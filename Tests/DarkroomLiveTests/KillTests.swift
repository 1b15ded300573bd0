import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// `darkroom fetch` and `darkroom serve` killed with SIGKILL at random
/// moments, over and over, on one cache folder; then everything that cache
/// serves must be exactly what a clean run makes.
///
/// Every round asks for sources the cache has never seen (each photo under
/// a new query), and each process is killed at a random moment after it
/// has begun to store them: a kill counts as one among the writes when it
/// leaves a temporary file (a write cut short), or when its process had
/// stored some of the round's entries and not yet all; most kills must. `DARKROOM_CRASH_KILLS` sets how many kills (10 here; `make
/// crash-test`: 100).
@Suite(.serialized)
struct KillTests {
    static let kills = ProcessInfo.processInfo.environment["DARKROOM_CRASH_KILLS"].flatMap(Int.init) ?? 10

    struct Row: Decodable {
        var name: String
        var state: String
        var file: String?
        var original: String?
    }

    @Test func fetchAndServeKilledAtRandomMomentsLeaveNoBadEntry() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = try Fixtures.temporaryFolder("darkroom-kills")
            defer { try? FileManager.default.removeItem(at: folder) }
            let photos = Corpus.photos
            try #require(!photos.isEmpty, "the corpus is missing: \(Corpus.photosFolder.path)")
            /// Round `round`'s rows: every photo, twice, under queries of that
            /// round (enough work that a process is still writing when killed).
            func urls(round: Int) -> [URL] {
                (0..<2).flatMap { copy in photos.map { origin.url("/photos/\($0.lastPathComponent)?round=\(round)&copy=\(copy)") } }
            }
            func list(_ rounds: Range<Int>) throws -> URL {
                let file = folder.appendingPathComponent("list-\(rounds.lowerBound)-\(rounds.upperBound).json")
                let rows = rounds.flatMap { round in
                    urls(round: round).enumerated().map { ["name": "round \(round) row \($0.offset) photo \($0.offset % photos.count)", "url": $0.element.absoluteString] }
                }
                try JSONSerialization.data(withJSONObject: rows).write(to: file)
                return file
            }
            // Large results, so that writing them is a good part of the work.
            func path(_ url: URL) -> String { "/img/_/rs:fit:1600:1600/plain/\(plainSource(url))@jpg" }
            let fetch = ["fetch", "--resize", "1600", "--json"]
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown() }) { () async throws in

                // What a clean run makes of each photo, on a cache of its own.
                let reference = try await DarkroomProcess.run(fetch + [try list(-1..<0).path, "--cache-dir", folder.appendingPathComponent("reference-cache").path,
                                                                       "--out", folder.appendingPathComponent("reference").path])
                #expect(reference.status == 0, "\(reference.stderr)")
                let expected = try results(reference.stdout, count: 2 * photos.count)
                let server = try await Server.start(cache: folder.appendingPathComponent("reference-serve"), client: client)
                var expectedAnswers: [Data] = []
                for url in urls(round: -1) { expectedAnswers.append(try await server.get(path(url))) }
                await server.kill()

                // Killed again and again on one cache, at a random moment each time
                // once the process has begun to store entries.
                let cache = folder.appendingPathComponent("cache")
                let temporary = cache.appendingPathComponent("tmp"), entries = cache.appendingPathComponent("v1")
                var rng = SystemRandomNumberGenerator()
                var interrupting = 0
                for round in 0..<Self.kills {
                    let moment = Duration.milliseconds(Int.random(in: 0...800, using: &rng))
                    let before = Fixtures.regularFiles(under: entries)
                    let storing = { Fixtures.regularFiles(under: entries).count > before.count || !Fixtures.regularFiles(under: temporary).isEmpty }
                    let stillRunning: Bool
                    // The entries a whole round stores: fetch keeps each result and
                    // its source; serve keeps results (a source asked in one version
                    // only is not kept).
                    let roundEntries = round.isMultiple(of: 2) ? 2 * urls(round: round).count : urls(round: round).count
                    if round.isMultiple(of: 2) {
                        let process = try DarkroomProcess.start(fetch + [try list(round..<(round + 1)).path, "--cache-dir", cache.path,
                                                                         "--out", folder.appendingPathComponent("killed").path],
                                                                log: folder.appendingPathComponent("fetch.log"))
                        _ = await eventuallyAsync(60) { storing() }
                        try await Task.sleep(for: moment)
                        stillRunning = process.isRunning
                        await DarkroomProcess.stop(process, signal: SIGKILL)
                    } else {
                        let server = try await Server.start(cache: cache, client: client)
                        let paths = urls(round: round).map(path)
                        // Clients keep asking, in random order, until the kill.
                        let load = Task {
                            await withTaskGroup(of: Void.self) { group in
                                for _ in 0..<4 {
                                    group.addTask {
                                        while !Task.isCancelled {
                                            _ = try? await server.get(paths.randomElement()!)
                                        }
                                    }
                                }
                            }
                        }
                        _ = await eventuallyAsync(60) { storing() }
                        try await Task.sleep(for: moment)
                        stillRunning = server.process.isRunning
                        await server.kill()
                        load.cancel()
                        await load.value
                    }
                    // Writes cut short leave their temporary files; entries stored by
                    // a process still running when it died were being written too.
                    let cut = !Fixtures.regularFiles(under: temporary).isEmpty
                    let added = Fixtures.regularFiles(under: entries).count - before.count
                    if cut || (added > 0 && added < roundEntries && stillRunning) { interrupting += 1 }
                }
                #expect(interrupting * 2 > Self.kills, "\(interrupting) of \(Self.kills) kills came while entries were being written")

                // Everything the cache serves now is what the clean runs made.
                let all = try list(0..<Self.kills)
                let final = try await DarkroomProcess.run(fetch + [all.path, "--cache-dir", cache.path, "--out", folder.appendingPathComponent("final").path,
                                                                   "--originals"])
                #expect(final.status == 0, "\(final.stderr)")
                for row in try results(final.stdout, count: Self.kills * 2 * photos.count).values {
                    let file = try #require(row.file, "\(row.name): \(row.state)")
                    let index = try #require(Int(row.name.split(separator: " ").last ?? ""))
                    let reference = try #require(expected["round -1 row \(index) photo \(index)"]?.file)
                    #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: URL(fileURLWithPath: reference)), "\(row.name) after \(Self.kills) kills")
                    let original = try #require(row.original, "\(row.name): no original")
                    #expect(try Data(contentsOf: URL(fileURLWithPath: original)) == Data(contentsOf: photos[index]), "\(row.name)'s cached source")
                }
                let survivor = try await Server.start(cache: cache, client: client)
                for round in 0..<Self.kills {
                    for (url, answer) in zip(urls(round: round), expectedAnswers) {
                        #expect(try await survivor.get(path(url)) == answer, "\(url) after \(Self.kills) kills")
                    }
                }
                await survivor.kill()
            }
        }
    }

    func results(_ stdout: String, count: Int) throws -> [String: Row] {
        let rows = try stdout.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
        #expect(rows.count == count)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0) })
    }

    /// A `darkroom serve` process on a cache folder.
    struct Server: Sendable {
        let port: Int
        let process: Process
        let client: HTTPClient

        static func start(cache: URL, client: HTTPClient) async throws -> Server {
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            // A log of its own per start: the port is read from it.
            let log = cache.appendingPathComponent("serve-\(UInt32.random(in: 0...UInt32.max)).log")
            let process = try DarkroomProcess.start(["serve", "--port", "0", "--cache-dir", cache.path,
                                                     "--allow-private-networks", "--memory-cache-mb", "16"], log: log)
            let port = try await ServingProcess.listening(process, log: log, seconds: 60).port
            let server = Server(port: port, process: process, client: client)
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, process.isRunning {
                if (try? await server.status("/health")) == 200 { return server }
                try await Task.sleep(for: .milliseconds(50))
            }
            await server.kill()
            throw ServerDidNotStart()
        }

        struct ServerDidNotStart: Error {}
        struct NotOK: Error { var status: UInt }

        func status(_ path: String) async throws -> UInt {
            try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(10)).status.code
        }

        func get(_ path: String) async throws -> Data {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 10 << 20)
            guard response.status == .ok else { throw NotOK(status: response.status.code) }
            return Data(buffer: body)
        }

        func kill() async {
            await DarkroomProcess.stop(process, signal: SIGKILL)
        }
    }
}
