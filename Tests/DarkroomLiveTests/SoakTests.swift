import AsyncHTTPClient
import Foundation
import NIOCore
import Synchronization
import Testing
import TestSupport
import DarkroomImaging

/// A `darkroom serve` process under a mix of cache hits, misses, failing
/// and slow sources and clients that hang up, for `DARKROOM_SOAK_SECONDS`
/// (20 here; `make soak` runs the long one with wrk): no 5xx but the
/// designed ones, and afterwards every request ended, the queues empty, the
/// file descriptors and resident memory where they were after warming up.
@Suite(.serialized)
struct SoakTests {
    static let seconds = ProcessInfo.processInfo.environment["DARKROOM_SOAK_SECONDS"].flatMap(Double.init) ?? 20

    /// What the clients saw, by kind of request.
    final class Tally: Sendable {
        private let counts = Locked<[String: [UInt: Int]]>([:])
        func add(_ kind: String, _ status: UInt) { counts.withLock { $0[kind, default: [:]][status, default: 0] += 1 } }
        var all: [String: [UInt: Int]] { counts.withLock { $0 } }
    }

    @Test func aMixedLoadLeavesNothingBehind() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            origin.set(.delay(.milliseconds(400)), for: "/photos/Storm.jpg")
            origin.set(.drip(chunk: 32 << 10, every: .milliseconds(30)), for: "/photos/Blinds.jpg")
            origin.set(.status(503), for: "/photos/Aqua.jpg")
            // Held back far longer than the server's download timeout: only a
            // hang-up ends a request for it.
            origin.set(.delay(.seconds(300)), for: "/photos/Wood.jpg")
            let folder = try Fixtures.temporaryFolder("darkroom-soak")
            defer { try? FileManager.default.removeItem(at: folder) }
            let process = try DarkroomProcess.start(["serve", "--port", "0", "--cache-dir", folder.path, "--allow-private-networks",
                                                     "--memory-cache-mb", "16", "--download-timeout", "120",
                                                     // Limits no request here reaches on a busy machine: the
                                                     // test is about what is left behind, not about speed.
                                                     "--max-processing-seconds", "600"],
                                                    log: folder.appendingPathComponent("serve.log"))
            try await cleaningUp({ await DarkroomProcess.stop(process) }) { () async throws in
                let port = try await ServingProcess.listening(process, log: folder.appendingPathComponent("serve.log")).port
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
                try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                    let base = "http://127.0.0.1:\(port)"
                    @Sendable func status(_ path: String, timeout: Duration = .seconds(300)) async throws -> UInt {
                        let response = try await client.execute(HTTPClientRequest(url: base + path), timeout: .nanoseconds(Int64(timeout.components.seconds) * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000))
                        _ = try await response.body.collect(upTo: 20 << 20)
                        return response.status.code
                    }
                    let up = await eventuallyAsync(60) { (try? await status("/health", timeout: .seconds(2))) == 200 }
                    try #require(up, "the server did not start")

                    let photos = Corpus.photos.map(\.lastPathComponent).filter { !["Storm.jpg", "Blinds.jpg", "Aqua.jpg", "Wood.jpg"].contains($0) }
                    // A source's query is escaped, or it would be the image URL's own.
                    @Sendable func image(_ name: String, _ query: String = "") -> String {
                        "/img/_/rs:fit:160:160/plain/\(plainSource(origin.url("/photos/\(name)\(query)")))@jpg"
                    }
                    // The kinds of request, and the one status each is designed to get
                    // (8 clients never fill the 64 waiting places, so no 429 is; 0: the
                    // client hung up first).
                    let kinds: [(name: String, path: @Sendable () -> String, designed: UInt, timeout: Duration)] = [
                        ("hit", { image(photos[Int.random(in: 0..<3)]) }, 200, .seconds(300)),
                        ("miss", { image(photos.randomElement()!, "?v=\(UInt64.random(in: 0...UInt64.max))") }, 200, .seconds(300)),
                        ("missing", { image("Missing-\(Int.random(in: 0..<1000)).jpg") }, 404, .seconds(300)),
                        ("not an image", { "/img/_/rs:fit:160:160/plain/\(plainSource(origin.url("/README.md?v=\(Int.random(in: 0..<1000))")))@jpg" }, 422, .seconds(300)),
                        ("origin 503", { image("Aqua.jpg", "?v=\(Int.random(in: 0..<1000))") }, 502, .seconds(300)),
                        ("slow", { image("Storm.jpg", "?v=\(UInt64.random(in: 0...UInt64.max))") }, 200, .seconds(300)),
                        ("drip", { image("Blinds.jpg", "?v=\(UInt64.random(in: 0...UInt64.max))") }, 200, .seconds(300)),
                        // Gives up after 50 ms, closing its connection mid-request: a
                        // source the origin holds back 300 s, so the answer cannot come
                        // first however fast the server is, nor however late this busy
                        // process's timer fires.
                        ("hang-up", { image("Wood.jpg", "?v=\(UInt64.random(in: 0...UInt64.max))") }, 0, .milliseconds(50)),
                    ]
                    let tally = Tally()
                    let start = ContinuousClock.now, end = start + .seconds(Self.seconds)
                    var warm: (rss: Int, fds: Int)?
                    await withTaskGroup(of: Void.self) { group in
                        for worker in 0..<8 {
                            group.addTask {
                                var i = worker
                                while ContinuousClock.now < end {
                                    let kind = kinds[i % kinds.count]
                                    i += 1
                                    do {
                                        tally.add(kind.name, try await status(kind.path(), timeout: kind.timeout))
                                    } catch {
                                        tally.add(kind.name, 0)   // the client gave up (hang-up) or could not connect
                                    }
                                }
                            }
                        }
                        // Warmed up at a third of the run: caches filled, threads made.
                        try? await Task.sleep(until: start + .seconds(Self.seconds / 3))
                        warm = (Self.residentKiB(process.processIdentifier), Self.openFiles(process.processIdentifier))
                        await group.waitForAll()
                    }

                    let counts = tally.all
                    for kind in kinds {
                        let seen = counts[kind.name] ?? [:]
                        #expect((seen[kind.designed] ?? 0) > 0, "no \(kind.name) request got its \(kind.designed): \(seen)")
                        #expect(seen.keys.allSatisfy { $0 == kind.designed }, "\(kind.name): \(seen), designed \(kind.designed)")
                    }

                    // Every request ends, however it ended, and the queues drain.
                    let drained = await eventuallyAsync(120) {
                        guard let metrics = try? await client.execute(HTTPClientRequest(url: base + "/metrics"), timeout: .seconds(5)),
                              let body = try? await metrics.body.collect(upTo: 1 << 20) else { return false }
                        let text = String(buffer: body)
                        // The one active request is this one.
                        return Self.metric(text, "http_server_active_requests") == 1 && Self.metric(text, "darkroom_image_requests_in_progress") == 0
                            && Self.metric(text, "darkroom_source_bytes_in_flight") == 0
                            && Self.metric(text, "darkroom_downloads_waiting_for_room") == 0
                    }
                    #expect(drained, "requests still in progress after the load")
                    let idle = await eventuallyAsync(120) {
                        guard let answer = try? await client.execute(HTTPClientRequest(url: base + "/api/status"), timeout: .seconds(5)),
                              let body = try? await answer.body.collect(upTo: 1 << 20),
                              let status = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Int] else { return false }
                        return ["downloadsRunning", "downloadsWaiting", "filtrationsRunning", "filtrationsWaiting"].allSatisfy { status[$0] == 0 }
                    }
                    #expect(idle, "the queues did not drain")
                    try? await client.shutdown()

                    let warmed = try #require(warm)
                    let fdsFlat = await eventually(120) { Self.openFiles(process.processIdentifier) <= warmed.fds }
                    #expect(fdsFlat, "file descriptors: \(Self.openFiles(process.processIdentifier)) after the load, \(warmed.fds) when warm")
                    let rss = Self.residentKiB(process.processIdentifier)
                    print("soak, \(Int(Self.seconds)) s: \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.sorted { $0.key < $1.key })" }.joined(separator: "; ")); "
                          + "resident \(warmed.rss / 1024) MiB warm, \(rss / 1024) MiB after; files \(warmed.fds) warm, \(Self.openFiles(process.processIdentifier)) after")
                    // A short run's bound; `make soak` holds the long run to 10%. Not
                    // under a sanitizer (`make sanitize`), whose allocator holds freed
                    // memory back in quarantine: resident memory is its, not ours.
                    if ProcessInfo.processInfo.environment["DARKROOM_SANITIZER"] == nil {
                        #expect(Double(rss) <= Double(warmed.rss) * 1.25, "resident memory \(rss / 1024) MiB after the load, \(warmed.rss / 1024) MiB when warm")
                    }
                }
            }
        }
    }

    static func metric(_ text: String, _ name: String) -> Double? {
        let values = text.split(separator: "\n").filter { $0.hasPrefix(name) }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        return values.isEmpty ? nil : values.reduce(0, +)
    }

    static func residentKiB(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    static func openFiles(_ pid: Int32) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    }
}
