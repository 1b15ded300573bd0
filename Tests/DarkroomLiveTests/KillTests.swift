import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// `darkroom fetch` and `darkroom serve` killed with SIGKILL at random
/// moments, over and over, on one cache folder; then everything that cache
/// serves must be exactly what a clean run makes.
///
/// `DARKROOM_CRASH_KILLS` sets how many kills (10 here; `make crash-test`:
/// 100).
@Suite(.serialized)
struct KillTests {
    static let kills = ProcessInfo.processInfo.environment["DARKROOM_CRASH_KILLS"].flatMap(Int.init) ?? 10
    static let rows = 24

    struct Row: Decodable {
        var name: String
        var state: String
        var file: String?
        var original: String?
    }

    @Test func fetchAndServeKilledAtRandomMomentsLeaveNoBadEntry() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        defer { Task { await origin.stop() } }
        let folder = try Fixtures.temporaryFolder("darkroom-kills")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = Corpus.photos
        let urls = (0..<Self.rows).map { origin.url("/photos/\(photos[$0 % photos.count].lastPathComponent)?row=\($0)") }
        let list = folder.appendingPathComponent("list.json")
        try JSONSerialization.data(withJSONObject: urls.enumerated().map { ["name": "row \($0.offset)", "url": $0.element.absoluteString] })
            .write(to: list)
        let fetch = ["fetch", list.path, "--resize", "200", "--json"]
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { Task { try? await client.shutdown() } }
        let paths = urls.map { "/img/_/rs:fit:200:200/plain/\(plainSource($0))@jpg" }

        // What a clean run makes, each on a cache of its own.
        let reference = try await DarkroomProcess.run(fetch + ["--cache-dir", folder.appendingPathComponent("reference-cache").path,
                                                               "--out", folder.appendingPathComponent("reference").path])
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try results(reference.stdout)
        let server = try await Server.start(cache: folder.appendingPathComponent("reference-serve"), client: client)
        var expectedAnswers: [Data] = []
        for path in paths { expectedAnswers.append(try await server.get(path)) }
        await server.kill()

        // Killed again and again on one cache, at a random moment each time.
        let cache = folder.appendingPathComponent("cache")
        var rng = SystemRandomNumberGenerator()
        for kill in 0..<Self.kills {
            let moment = Duration.milliseconds(Int.random(in: 30...1_500, using: &rng))
            if kill.isMultiple(of: 2) {
                let process = try DarkroomProcess.start(fetch + ["--cache-dir", cache.path, "--out", folder.appendingPathComponent("killed").path],
                                                        log: folder.appendingPathComponent("fetch.log"))
                try await Task.sleep(for: moment)
                await DarkroomProcess.stop(process, signal: SIGKILL)
            } else {
                let server = try await Server.start(cache: cache, client: client)
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
                try await Task.sleep(for: moment)
                await server.kill()
                load.cancel()
                await load.value
            }
        }

        // Everything the cache serves now is what the clean runs made.
        let final = try await DarkroomProcess.run(fetch + ["--cache-dir", cache.path, "--out", folder.appendingPathComponent("final").path,
                                                           "--originals"])
        #expect(final.status == 0, "\(final.stderr)")
        for row in try results(final.stdout).values {
            let file = try #require(row.file, "\(row.name): \(row.state)")
            let reference = try #require(expected[row.name]?.file)
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(contentsOf: URL(fileURLWithPath: reference)), "\(row.name) after \(Self.kills) kills")
            let index = try #require(Int(row.name.dropFirst("row ".count)))
            let original = try #require(row.original, "\(row.name): no original")
            #expect(try Data(contentsOf: URL(fileURLWithPath: original)) == Data(contentsOf: photos[index % photos.count]), "\(row.name)'s cached source")
        }
        let survivor = try await Server.start(cache: cache, client: client)
        for (path, answer) in zip(paths, expectedAnswers) {
            #expect(try await survivor.get(path) == answer, "\(path) after \(Self.kills) kills")
        }
        await survivor.kill()
    }

    func results(_ stdout: String) throws -> [String: Row] {
        let rows = try stdout.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
        #expect(rows.count == Self.rows)
        return Dictionary(uniqueKeysWithValues: rows.map { ($0.name, $0) })
    }

    /// A `darkroom serve` process on a cache folder.
    struct Server: Sendable {
        let port: Int
        let process: Process
        let client: HTTPClient

        static func start(cache: URL, client: HTTPClient) async throws -> Server {
            try FileManager.default.createDirectory(at: cache, withIntermediateDirectories: true)
            let port = try LoopbackPort.free()
            let process = try DarkroomProcess.start(["serve", "--port", "\(port)", "--cache-dir", cache.path,
                                                     "--allow-private-networks", "--memory-cache-mb", "16"],
                                                    log: cache.appendingPathComponent("serve-\(port).log"))
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
