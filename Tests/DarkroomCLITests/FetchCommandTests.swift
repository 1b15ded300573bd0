import Darkroom
@testable import DarkroomCLI
import DarkroomImaging
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct FetchCommandTests {
    struct Row: Decodable {
        var name: String
        var state: String
        var file: String?
        var reason: String?
    }

    func rows(_ stdout: String) throws -> [Row] {
        try stdout.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
    }

    @Test func fetchesTheSeedListThenServesASecondRunFromTheCache() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = try Fixtures.temporaryFolder("darkroom-fetch")
            defer { try? FileManager.default.removeItem(at: folder) }
            let list = try SeedList.write(for: origin, in: folder)
            let out = folder.appendingPathComponent("out").path, cache = folder.appendingPathComponent("cache").path
            let arguments = ["fetch", list, "--out", out, "--cache-dir", cache, "--resize", "300", "--json"]

            let first = try await DarkroomProcess.run(arguments)
            #expect(first.status == 1, "two rows failed")
            let results = try rows(first.stdout)
            #expect(results.count == 12)
            for name in SeedList.goodNames {
                let row = try #require(results.first { $0.name == name })
                #expect(row.state == "filtered", "\(name)")
                let file = try #require(row.file)
                let pixels = try RawPixels.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))), loader: .jpeg)
                #expect(max(pixels.width, pixels.height) == 300)
            }
            let missing = try #require(results.first { $0.name == "Missing Photo" })
            #expect(missing.state == "failed" && missing.reason?.contains("404") == true)
            let notAPhoto = try #require(results.first { $0.name == "Not A Photo" })
            #expect(notAPhoto.state == "failed" && notAPhoto.reason?.contains("not an image") == true)
            let requestsAfterFirst = origin.totalRequests
            #expect(requestsAfterFirst == 12)

            let second = try await DarkroomProcess.run(arguments)
            #expect(second.status == 1)
            #expect(try rows(second.stdout).filter { $0.state == "filtered" }.count == 10)
            #expect(origin.totalRequests == requestsAfterFirst, "the second run made no origin request")
        }
    }

    @Test func aListLongerThanTheWindowOfWorkRunsEveryRow() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = try Fixtures.temporaryFolder("darkroom-fetch-long")
            defer { try? FileManager.default.removeItem(at: folder) }
            // Each row its own download; every seventh names a missing photo,
            // so rows leave the window by failing as well as by finishing.
            let count = FetchRun.window * 2 + 30
            let photos = Corpus.photos
            let entries = (0..<count).map { i -> [String: String] in
                let path = i % 7 == 3 ? "/photos/Missing-\(i).jpg" : "/photos/\(photos[i % photos.count].lastPathComponent)?row=\(i)"
                return ["name": "row \(i)", "url": origin.url(path).absoluteString]
            }
            let list = folder.appendingPathComponent("list.json")
            try JSONSerialization.data(withJSONObject: entries).write(to: list)

            let run = try await DarkroomProcess.run(["fetch", list.path, "--out", folder.appendingPathComponent("out").path,
                                                     "--cache-dir", folder.appendingPathComponent("cache").path,
                                                     "--resize", "64", "--json"])
            let results = try rows(run.stdout)
            #expect(results.count == count)
            for i in 0..<count {
                let row = try #require(results.first { $0.name == "row \(i)" })
                if i % 7 == 3 {
                    #expect(row.state == "failed", "row \(i)")
                } else {
                    #expect(row.state == "filtered", "row \(i)")
                    #expect(row.file.map { FileManager.default.fileExists(atPath: $0) } == true, "row \(i)")
                }
            }
        }
    }

    @Test func shardsCoverTheListExactlyOnce() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = try Fixtures.temporaryFolder("darkroom-shard")
            defer { try? FileManager.default.removeItem(at: folder) }
            let list = try SeedList.write(for: origin, in: folder)
            var names: [String] = []
            for shard in 1...3 {
                let run = try await DarkroomProcess.run(["fetch", list, "--shard", "\(shard)/3", "--out", folder.appendingPathComponent("out\(shard)").path,
                                                         "--cache-dir", folder.appendingPathComponent("cache").path, "--json"])
                names += try rows(run.stdout).map(\.name)
            }
            #expect(names.sorted() == (SeedList.goodNames + SeedList.wrongNames).sorted())
        }
    }

    @Test func writesOriginalsWhenAsked() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = try Fixtures.temporaryFolder("darkroom-originals")
            defer { try? FileManager.default.removeItem(at: folder) }
            let listFile = folder.appendingPathComponent("one.json")
            try Data(#"[{"name": "Lady Bird", "url": "\#(origin.url("/photos/LadyBird.jpg"))"}]"#.utf8).write(to: listFile)
            let out = folder.appendingPathComponent("out")
            let run = try await DarkroomProcess.run(["fetch", listFile.path, "--out", out.path, "--originals", "--filter", "grayscale", "--cache-dir", folder.appendingPathComponent("c").path])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Data(contentsOf: out.appendingPathComponent("Lady Bird.original.jpg")) == (try Corpus.data("LadyBird.jpg")))
            #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("Lady Bird.jpg").path))
            #expect(run.stdout.contains("1 of 1 filtered"))
        }
    }

    /// LIST names a list that exists and reads well, so that each case
    /// fails for the reason it names, not because the file is missing.
    @Test(arguments: [
        (["fetch", "/no/such/list.plist"], "/no/such/list.plist"),
        (["fetch", "LIST", "--shard", "4/3"], "--shard 4/3"),
        (["fetch", "LIST", "--concurrency", "0"], "--concurrency"),
        (["fetch", "LIST", "--filter", "vintage"], "vintage"),
        (["fetch", "LIST", "--shard-count", "2"], "JOB_COMPLETION_INDEX"),
    ])
    func usageErrorsAndUnreadableListsExitWithTwo(arguments: [String], words: String) async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-usage")
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = folder.appendingPathComponent("list.json")
        try Data(#"[{"name": "a", "url": "http://127.0.0.1:9/a.jpg"}]"#.utf8).write(to: list)
        let run = try await DarkroomProcess.run(arguments.map { $0 == "LIST" ? list.path : $0 }
            + ["--cache-dir", folder.appendingPathComponent("cache").path, "--out", folder.appendingPathComponent("out").path])
        #expect(run.status == 2)
        #expect(run.stderr.contains(words), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("out").path), "a usage error writes nothing")
    }

    @Test func cacheStatsPruneAndClear() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-cachecmd")
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try DiskCache(configuration: .init(folder: folder))
        for i in 0..<4 { try cache.store(DiskCacheEntry(data: Data(repeating: UInt8(i), count: 10_000)), for: "k\(i)") }

        let stats = try await DarkroomProcess.run(["cache", "stats", "--cache-dir", folder.path])
        #expect(stats.status == 0)
        #expect(stats.stdout.contains("entries  4"))
        let prune = try await DarkroomProcess.run(["cache", "prune", "--max-size", "25000", "--cache-dir", folder.path])
        #expect(prune.status == 0)
        #expect(try DiskCache(configuration: .init(folder: folder)).statistics.totalCost <= 25_000)
        let clear = try await DarkroomProcess.run(["cache", "clear", "--cache-dir", folder.path])
        #expect(clear.status == 0)
        #expect(try DiskCache(configuration: .init(folder: folder)).statistics.count == 0)
    }
}
