import AsyncHTTPClient
import DarkroomServer
@testable import Darkroom
import Foundation
import Synchronization
import NIOCore
import Testing
import ServerTestSupport
import TestSupport

/// Replicas sharing one result cache in a real S3 store (SeaweedFS), each
/// a `darkroom serve` process of its own, as they run in production: their
/// metrics are their own, and so are their disk caches.
@Suite(.serialized)
struct SharedCacheTests {
    /// One `darkroom serve --result-cache s3://...` process.
    final class Replica: @unchecked Sendable {
        let port: Int
        let process: Process
        let client: HTTPClient

        static func start(store: SeaweedFS, name: String, extra: [String] = [], storeTimeout: Int = Replica.storeTimeout) async throws -> Replica {
            let cache = try Fixtures.temporaryFolder("replica-\(name)")
            let log = cache.appendingPathComponent("serve.log")
            let process = try startProcess([
                "serve", "--port", "0", "--cache-dir", cache.path, "--allow-private-networks", "--memory-cache-mb", "16",
                "--result-cache", "s3://darkroom/cache", "--s3-endpoint", store.endpoint.absoluteString,
                // Reads from the store wait for it longer than a busy machine
                // makes them take: a replica that processes instead of
                // finding what another stored does so for the test's reason.
                "--result-cache-timeout", "\(storeTimeout)",
            ] + extra, log: log)
            let port: Int
            do {
                port = try await ServingProcess.listening(process, log: log).port
            } catch {
                throw ReplicaError(description: "replica \(name): \(error)")
            }
            let replica = Replica(port: port, process: process)
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                if (try? await replica.get("/health"))?.status == 200 { return replica }
                guard process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            await replica.stop()
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw ReplicaError(description: "replica \(name) did not start: \(text.suffix(1500))")
        }

        private static func startProcess(_ arguments: [String], log: URL) throws -> Process {
            try DarkroomProcess.start(arguments, log: log, environment: [
                "AWS_ACCESS_KEY_ID": SeaweedFS.accessKey, "AWS_SECRET_ACCESS_KEY": SeaweedFS.secretKey, "AWS_REGION": "us-east-1",
            ])
        }

        /// The replicas' time limit for a read from the store, in seconds,
        /// but for the test about that limit.
        static let storeTimeout = 120

        private init(port: Int, process: Process) {
            self.port = port
            self.process = process
            client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        }

        struct Answer {
            var status: Int
            var etag: String?
            var body: Data
        }

        func get(_ path: String, timeout: Duration = .seconds(60)) async throws -> Answer {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"),
                                                    timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000))
            let body = try await response.body.collect(upTo: 50 << 20)
            return Answer(status: Int(response.status.code), etag: response.headers.first(name: "etag"), body: Data(buffer: body))
        }

        /// A counter or a histogram's count from `/metrics`, summed over the
        /// lines that match (0 when there is none yet).
        func metric(_ prefix: String) async throws -> Double {
            let text = String(decoding: try await get("/metrics").body, as: UTF8.self)
            return text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
                .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
        }

        func processed() async throws -> Double { try await metric("darkroom_stage_duration_seconds_count{stage=\"process\"}") }
        func s3Hits() async throws -> Double { try await metric("darkroom_cache_hits_total{cache=\"s3\"}") }

        func health() async throws -> [String: String] {
            try JSONDecoder().decode([String: String].self, from: try await get("/health").body)
        }

        private let stopped = Atomic<Bool>(false)

        func stop() async {
            guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
            await DarkroomProcess.stop(process)
            try? await client.shutdown()
        }

        /// A replica dropped without ``stop()`` (a test that threw halfway)
        /// still shuts its client down: one dropped while running traps
        /// the test process. (Its process dies with the test process.)
        deinit {
            guard !stopped.load(ordering: .acquiring) else { return }
            client.shutdown { _ in }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    struct ReplicaError: Error, CustomStringConvertible {
        var description: String
    }

    static func bucketReady(_ store: SeaweedFS) async throws {
        let client = try store.client(bucket: "darkroom")
        try await cleaningUp({ await client.shutdown() }) { () async throws in
            // The bucket's volumes are allocated here, not in the replicas'
            // first store.
            try await store.prepare(client)
        }
    }

    /// Runs `body` with a store, an origin and two replicas, and stops them
    /// all, whatever happens.
    static func withReplicas(storeTimeout: Int = Replica.storeTimeout,
                             _ body: (SeaweedFS, OriginServer, Replica, Replica) async throws -> Void) async throws {
        let store = try await SeaweedFS.start()
        let origin: OriginServer
        do {
            try await bucketReady(store)
            origin = try await OriginServer.start(serving: Fixtures.folder)
        } catch {
            await store.stop()
            throw error
        }
        var replicas: [Replica] = []
        do {
            replicas.append(try await Replica.start(store: store, name: "a", storeTimeout: storeTimeout))
            replicas.append(try await Replica.start(store: store, name: "b", storeTimeout: storeTimeout))
            try await body(store, origin, replicas[0], replicas[1])
        } catch {
            for replica in replicas { await replica.stop() }
            await origin.stop()
            await store.stop()
            throw error
        }
        for replica in replicas { await replica.stop() }
        await origin.stop()
        await store.stop()
    }

    static func path(_ origin: OriginServer, width: Int) -> String {
        "/img/_/w:\(width)/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
    }

    /// Polls `condition` every 100 ms for up to `seconds`.
    static func becomes(_ seconds: Double = 120, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    @Test func aSecondReplicaAnswersFromTheStoreWithoutTheOriginOrProcessing() async throws {
        try await Self.withReplicas { store, origin, a, b in
            let path = Self.path(origin, width: 160)
            let first = try await a.get(path)
            #expect(first.status == 200)
            #expect(try await a.processed() == 1)
            #expect(origin.requests("/landscape.jpg") == 1)

            // A stores after it answers: B finds it once the write is done.
            #expect(try await Self.becomes { try await a.metric("darkroom_s3_stores_total") == 1 })
            let second = try await b.get(path)
            #expect(second.body == first.body)
            #expect(second.etag == first.etag)
            #expect(try await b.s3Hits() == 1)
            #expect(origin.requests("/landscape.jpg") == 1, "B must not ask the origin")
            #expect(try await b.processed() == 0, "B must not process")

            // A replica that starts with an empty disk cache (a replacement)
            // answers from the store too.
            let c = try await Replica.start(store: store, name: "c")
            let third = try await c.get(path)
            #expect(third.body == first.body)
            #expect(third.etag == first.etag)
            #expect(try await c.processed() == 0)
            #expect(try await c.s3Hits() == 1)
            await c.stop()
            #expect(origin.requests("/landscape.jpg") == 1)
        }
    }

    /// Keys come from the source and the options, never the signature: a
    /// replica that signs with another key answers the first's object, with
    /// neither the origin nor processing.
    @Test func replicasWithDifferentSigningKeysShareTheirResults() async throws {
        let store = try await SeaweedFS.start()
        let origin = try await OriginServer.start(serving: Fixtures.folder)
        var replicas: [Replica] = []
        do {
            try await Self.bucketReady(store)
            let keyA = try URLSignature(hexKey: "6b657961", hexSalt: "73616c7461"), keyB = try URLSignature(hexKey: "6b657962", hexSalt: "73616c7462")
            let a = try await Replica.start(store: store, name: "signed-a", extra: ["--key", "6b657961", "--salt", "73616c7461"])
            replicas.append(a)
            let b = try await Replica.start(store: store, name: "signed-b", extra: ["--key", "6b657962", "--salt", "73616c7462"])
            replicas.append(b)
            let written = "/w:170/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            let first = try await a.get("/img/\(keyA.sign(written))\(written)")
            #expect(first.status == 200)
            #expect(try await b.get("/img/\(keyA.sign(written))\(written)").status == 403, "B takes its own key only")
            #expect(try await Self.becomes { try await a.metric("darkroom_s3_stores_total") == 1 })
            let second = try await b.get("/img/\(keyB.sign(written))\(written)")
            #expect(second.status == 200)
            #expect(second.body == first.body && second.etag == first.etag)
            #expect(try await b.s3Hits() == 1)
            #expect(try await b.processed() == 0, "B must not process")
            #expect(origin.requests("/landscape.jpg") == 1, "B must not ask the origin")
        } catch {
            Issue.record(error)
        }
        for replica in replicas { await replica.stop() }
        await origin.stop()
        await store.stop()
    }

    @Test func withSourceCacheAReplicaNeverAsksTheOriginForAPhotoAnotherHas() async throws {
        let store = try await SeaweedFS.start()
        let origin = try await OriginServer.start(serving: Fixtures.folder)
        var replicas: [Replica] = []
        do {
            try await Self.bucketReady(store)
            let a = try await Replica.start(store: store, name: "source-a", extra: ["--source-cache"])
            replicas.append(a)
            let b = try await Replica.start(store: store, name: "source-b", extra: ["--source-cache"])
            replicas.append(b)
            #expect(try await a.get(Self.path(origin, width: 150)).status == 200)
            // The result and the source, both stored.
            #expect(try await Self.becomes { try await a.metric("darkroom_s3_duration_seconds_count{operation=\"put\"}") == 2 })
            // Other options: B makes a new image, from the source A fetched.
            let other = try await b.get(Self.path(origin, width: 90))
            #expect(other.status == 200)
            #expect(try await b.processed() == 1)
            #expect(try await b.metric("darkroom_cache_hits_total{cache=\"s3_source\"}") == 1)
            #expect(origin.requests("/landscape.jpg") == 1, "only A asked the origin")
        } catch {
            Issue.record(error)
        }
        for replica in replicas { await replica.stop() }
        await origin.stop()
        await store.stop()
    }

    /// With the store gone, a connection to it is tried again and again
    /// until the read's time limit: the limit (2 s, the default) is what
    /// keeps a request from waiting for the store for ever.
    @Test func aStoreThatGoesDownLeavesEveryRequestAnsweredAndHitsResumeWhenItIsBack() async throws {
        try await Self.withReplicas(storeTimeout: 2) { store, origin, a, b in
            #expect(try await b.health()["resultCache"] == "ok")
            await store.stop()
            // Every request is answered, from the origin: none waits for the
            // store past its limit (a client's minute is thirty limits).
            for width in [100, 101, 102, 103, 104] {
                let answer = try await b.get(Self.path(origin, width: width), timeout: .seconds(60))
                #expect(answer.status == 200)
            }
            let health = try await b.health()
            #expect(health["status"] == "degraded")
            #expect(health["resultCache"]?.hasPrefix("S3 ") == true)
            #expect(try await b.get("/health").status == 200)

            try await store.run()
            // Once the breaker's cooldown ends, a trial call finds the store
            // again: what A makes, B finds.
            var width = 200
            let resumed = try await Self.becomes(300) {
                width += 1
                let path = Self.path(origin, width: width)
                // Each replica's breaker tries the store again after its own
                // cooldown; until then A does not store and B does not look.
                let storesBefore = try await a.metric("darkroom_s3_stores_total")
                guard try await a.get(path).status == 200 else { return false }
                guard try await Self.becomes(30, { try await a.metric("darkroom_s3_stores_total") > storesBefore }) else { return false }
                let hitsBefore = try await b.s3Hits()
                guard try await b.get(path).status == 200 else { return false }
                return try await b.s3Hits() > hitsBefore
            }
            #expect(resumed)
            #expect(try await b.health()["status"] == "ok")
        }
    }
}

/// `s3://BUCKET/KEY` sources, from the buckets allowed only.
struct S3SourceTests {
    @Test func servesObjectsFromAllowedBucketsOnly() async throws {
        let store = try await SeaweedFS.start()
        let credentials = S3Credentials(accessKeyID: SeaweedFS.accessKey, secretAccessKey: SeaweedFS.secretKey)
        let client = try store.client(bucket: "photos")
        let server: TestServer
        do {
            try await store.prepare(client)
            try await client.put("summer/landscape.jpg", data: try Fixtures.data("landscape.jpg"), contentType: "image/jpeg")
            try await client.put("summer/notes.txt", data: Data("not a photo".utf8), contentType: "text/plain")
            server = try await TestServer.start { configuration in
                configuration.s3Sources = S3SourceLoader.Configuration(endpoint: store.endpoint, credentials: credentials, allowedBuckets: ["photos"])
            }
        } catch {
            await client.shutdown()
            await store.stop()
            throw error
        }
        try await cleaningUp({
            await server.stop()
            await client.shutdown()
            await store.stop()
        }) {
            let photo = try await server.get("/img/_/w:100/plain/s3://photos/summer/landscape.jpg@png")
            #expect(photo.status == .ok)
            #expect(photo.header("content-type") == "image/png")
            let size = try pngSize(photo.body)
            #expect(size.width == 100)

            let missing = try await server.get("/img/_/w:100/plain/s3://photos/summer/none.jpg@png")
            #expect(missing.status == .notFound)
            #expect(String(decoding: missing.body, as: UTF8.self).contains("does not exist"))

            let notImage = try await server.get("/img/_/w:100/plain/s3://photos/summer/notes.txt@png")
            #expect(notImage.status.code >= 400 && notImage.status.code < 500)
            #expect(String(decoding: notImage.body, as: UTF8.self).contains("not an image"))

            let otherBucket = try await server.get("/img/_/w:100/plain/s3://private-bucket/secret.jpg@png")
            #expect(otherBucket.status == .notFound)
            #expect(String(decoding: otherBucket.body, as: UTF8.self).contains("not among the S3 source buckets allowed"))
        }
    }

    @Test func s3SourcesAreRefusedUnlessTurnedOn() async throws {
        let server = try await TestServer.start()
        try await cleaningUp({ await server.stop() }) {
            let answer = try await server.get("/img/_/w:100/plain/s3://photos/summer/landscape.jpg@png")
            #expect(answer.status.code >= 400 && answer.status.code < 500)
            #expect(String(decoding: answer.body, as: UTF8.self).contains("not an http or https URL"))
        }
    }

    /// The PNG's width and height, from its header.
    func pngSize(_ png: Data) throws -> (width: Int, height: Int) {
        let bytes = [UInt8](png)
        guard bytes.count > 24 else { throw NotAPNG() }
        func int(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        return (int(16), int(20))
    }

    struct NotAPNG: Error {}
}
