import Darkroom
import Foundation
import Testing
import TestSupport

/// `darkroom fetch --out s3://...` against a real store (SeaweedFS): a run
/// killed halfway and run again does only what is missing, and shards from
/// `JOB_COMPLETION_INDEX` cover a list exactly once.
@Suite(.serialized)
struct FetchToS3Tests {
    static let rows = 30
    static let environment = ["AWS_ACCESS_KEY_ID": SeaweedFS.accessKey, "AWS_SECRET_ACCESS_KEY": SeaweedFS.secretKey, "AWS_REGION": "us-east-1"]

    struct Row: Decodable {
        var row: Int
        var name: String
        var state: String
    }

    /// Rows from here on come from `heldPath`, which the first run of the
    /// kill test never gets: it cannot finish before it is killed, however
    /// slow the machine.
    static let firstHeldRow = 12
    static let heldPath = "/gray.jpg"

    /// A list of `rows` photos, each its own URL (and so its own download).
    static func writeList(origin: OriginServer, in folder: URL) throws -> String {
        let entries = (0..<rows).map { i in
            ["name": "photo \(i)", "url": origin.url(i < firstHeldRow ? "/landscape.jpg" : heldPath).absoluteString + "?n=\(i)"]
        }
        let file = folder.appendingPathComponent("list.json")
        try JSONSerialization.data(withJSONObject: entries).write(to: file)
        return file.path
    }

    static func withStore(_ body: (SeaweedFS, S3Client, OriginServer, URL) async throws -> Void) async throws {
        let store = try await SeaweedFS.start()
        let client = try store.client(bucket: "batch")
        let origin = try await OriginServer.start(serving: Fixtures.folder)
        let folder = try Fixtures.temporaryFolder("darkroom-fetch-s3")
        do {
            try await store.prepare(client, warmUpKey: "warm-up/x")
            try await body(store, client, origin, folder)
        } catch {
            await client.shutdown()
            await origin.stop()
            await store.stop()
            throw error
        }
        await client.shutdown()
        await origin.stop()
        await store.stop()
    }

    @Test func aRunKilledHalfwayThenRunAgainDoesOnlyWhatIsMissing() async throws {
        try await Self.withStore { store, client, origin, folder in
            let list = try Self.writeList(origin: origin, in: folder)
            let out = "s3://batch/run/"
            // The first rows are slow, the rest never come: the run is
            // caught halfway.
            origin.setDefaultDelay(.milliseconds(150))
            origin.set(.delay(.seconds(120)), for: Self.heldPath)
            let first = try DarkroomProcess.start(["fetch", list, "--out", out, "--s3-endpoint", store.endpoint.absoluteString, "--concurrency", "2",
                                                   "--cache-dir", folder.appendingPathComponent("cache1").path, "--json"],
                                                  log: folder.appendingPathComponent("first.log"), environment: Self.environment)
            var written = 0
            let deadline = ContinuousClock.now + .seconds(60)
            while ContinuousClock.now < deadline, written < 8, first.isRunning {
                written = try await client.keys(under: "run/").count
                try await Task.sleep(for: .milliseconds(20))
            }
            await DarkroomProcess.stop(first, signal: SIGKILL)
            let before = try await client.keys(under: "run/")
            #expect(before.count >= 8 && before.count < Self.rows, "killed halfway: \(before.count) of \(Self.rows) written")

            origin.setDefaultDelay(.zero)
            origin.set(.normal, for: Self.heldPath)
            origin.resetCounts()
            let second = try await DarkroomProcess.run(["fetch", list, "--out", out, "--s3-endpoint", store.endpoint.absoluteString,
                                                        "--cache-dir", folder.appendingPathComponent("cache2").path, "--json"],
                                                       environment: Self.environment)
            #expect(second.status == 0, "\(second.stderr)")
            let rows = second.stdout.split(separator: "\n").compactMap { try? JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
            #expect(rows.count == Self.rows)
            #expect(rows.filter { $0.state == "skipped" }.count == before.count)
            #expect(rows.filter { $0.state == "filtered" }.count == Self.rows - before.count)
            #expect(origin.requests("/landscape.jpg") + origin.requests(Self.heldPath) == Self.rows - before.count,
                    "the rerun fetched only the missing rows")

            // Every row's object, once, whole.
            let keys = try await client.keys(under: "run/").filter { !$0.hasPrefix("run/_summary/") }
            #expect(keys.sorted() == (0..<Self.rows).map { "run/photo \($0).jpg" }.sorted())
            for key in keys {
                let object = try #require(try await client.get(key))
                #expect(ImageFormat.sniff(object.data) == .image(.jpeg))
                #expect(object.data.suffix(2) == Data([0xFF, 0xD9]), "\(key) is a whole JPEG")
                #expect(object.contentType == "image/jpeg")
            }
        }
    }

    @Test func shardsFromTheJobCompletionIndexCoverTheListOnce() async throws {
        try await Self.withStore { store, client, origin, folder in
            let list = try Self.writeList(origin: origin, in: folder)
            var names: [String] = []
            for index in 0..<2 {
                let run = try await DarkroomProcess.run(["fetch", list, "--out", "s3://batch/sharded", "--shard-count", "2",
                                                         "--s3-endpoint", store.endpoint.absoluteString,
                                                         "--cache-dir", folder.appendingPathComponent("cache\(index)").path, "--json"],
                                                        environment: Self.environment.merging(["JOB_COMPLETION_INDEX": "\(index)"]) { $1 })
                #expect(run.status == 0, "\(run.stderr)")
                let rows = run.stdout.split(separator: "\n").compactMap { try? JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
                #expect(!rows.isEmpty && rows.count < Self.rows, "a shard has part of the list")
                names += rows.map(\.name)

                let summary = try #require(try await client.get("sharded/_summary/shard-\(index + 1)-of-2.json"))
                let fields = try #require(try JSONSerialization.jsonObject(with: summary.data) as? [String: Int])
                #expect(fields["rows"] == rows.count)
                #expect(fields["done"] == rows.count)
                #expect(fields["failed"] == 0)
                #expect(fields["skipped"] == 0)
            }
            #expect(names.sorted() == (0..<Self.rows).map { "photo \($0)" }.sorted())
            let keys = try await client.keys(under: "sharded/").filter { !$0.hasPrefix("sharded/_summary/") }
            #expect(keys.count == Self.rows)
            #expect(origin.requests("/landscape.jpg") + origin.requests(Self.heldPath) == Self.rows)

            let missing = try await DarkroomProcess.run(["fetch", list, "--out", "s3://batch/sharded", "--shard-count", "2",
                                                         "--s3-endpoint", store.endpoint.absoluteString], environment: Self.environment)
            #expect(missing.status != 0)
            #expect(missing.stderr.contains("JOB_COMPLETION_INDEX"))
        }
    }
}
