import AsyncHTTPClient
import Darkroom
@testable import DarkroomServer
import Foundation
import NIOCore
import Testing
import ServerTestSupport
import TestSupport

/// What a cache hit answers, what a request leaves behind, and the memory
/// cache's bound: behaviour, not speed (the speed is in bench/servers.py).
@Suite struct HitPathTests {
    func withServer(_ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
                    _ body: (TestServer, OriginServer) async throws -> Void) async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, configure, body)
    }

    /// A gauge's value from the server's /metrics text.
    func gauge(_ name: String, on server: TestServer) async throws -> Double? {
        let text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") || line.hasPrefix(name + "{") {
            return line.split(separator: " ").last.flatMap { Double($0) }
        }
        return nil
    }

    @Test func theETagIsStableAcrossRestartsAndChangesWithTheOptions() async throws {
        let origin = try await OriginServer.start(serving: Fixtures.folder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let source = origin.url("/landscape.jpg").absoluteString
            var etags: [String] = []
            for _ in 0..<2 {
                // Each server has a cache folder of its own: the second one makes
                // the image again, and must name it the same.
                let server = try await TestServer.start { $0.trustedOrigins = [origin.url("/").absoluteString] }
                let answer = try await server.get("/img/_/rs:fit:120:120/plain/\(source)@jpg")
                #expect(answer.status == .ok)
                etags.append(answer.header("ETag") ?? "none")
                let other = try await server.get("/img/_/rs:fit:121:121/plain/\(source)@jpg")
                #expect(other.header("ETag") != answer.header("ETag"), "other options, other bytes, other ETag")
                let sepia = try await server.get("/img/_/rs:fit:120:120/sepia:0.5/plain/\(source)@jpg")
                #expect(sepia.header("ETag") != answer.header("ETag"))
                await server.stop()
            }
            #expect(etags[0] == etags[1])
            #expect(etags[0].hasPrefix("\"") && etags[0].count == 34)
        }
    }

    @Test func aHitAnswersTheSameBytesAndHeadersAsTheMissThatStoredIt() async throws {
        try await withServer { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            for (path, accept) in [("/img/_/rs:fill:100:80/plain/\(source)@png", "*/*"),
                                   ("/img/_/w:90/plain/\(source)", "image/webp,*/*"),
                                   ("/img/_/w:90/fn:holiday/att:1/plain/\(source)@jpg", "*/*"),
                                   // At the root, as imgproxy serves its URLs.
                                   ("/_/w:80/plain/\(source)@jpg", "*/*")] {
                let miss = try await server.get(path, headers: [("Accept", accept)])
                let hit = try await server.get(path, headers: [("Accept", accept)])
                #expect(miss.status == .ok && hit.status == .ok)
                #expect(miss.body == hit.body)
                #expect(!hit.body.isEmpty)
                for name in ["ETag", "Cache-Control", "Content-Type", "Content-Length", "Vary", "Server", "Content-Disposition",
                             "X-Content-Type-Options", "Content-Security-Policy"] {
                    #expect(miss.header(name) == hit.header(name), "\(name) of \(path)")
                }
                #expect(hit.header("Content-Length") == "\(hit.body.count)")
                // As imgproxy: no sniffing, no scripts, on misses and hits alike.
                #expect(hit.header("X-Content-Type-Options") == "nosniff" && hit.header("Content-Security-Policy") == "script-src 'none'")
                #expect(hit.header("Date")?.hasSuffix(" GMT") == true, "\(hit.header("Date") ?? "no Date")")
                // The client's copy is current: 304, no body, the same validators.
                let again = try await server.get(path, headers: [("Accept", accept), ("If-None-Match", hit.header("ETag") ?? "")])
                #expect(again.status == .notModified && again.body.isEmpty)
                #expect(again.header("ETag") == hit.header("ETag"))
            }
            let named = try await server.get("/img/_/w:90/fn:holiday/att:1/plain/\(source)@jpg")
            #expect(named.header("Content-Disposition") == "attachment; filename=\"holiday.jpg\"")
            // Without fn or att, as imgproxy: inline, named after the source, with the answer's extension.
            let unnamed = try await server.get("/img/_/rs:fill:100:80/plain/\(source)@png")
            #expect(unnamed.header("Content-Disposition") == "inline; filename=\"landscape.png\"")
            // The origin was asked once for all of it.
            #expect(origin.requests("/landscape.jpg") == 1)
        }
    }

    /// Hits are answered on the connection's event loop, misses by the
    /// router: requests pipelined on one connection still get their answers
    /// in the order they were asked.
    @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
        try await withServer { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let hitPath = "/img/_/w:50/plain/\(source)@jpg"
            let hit = try await server.get(hitPath)
            #expect(hit.status == .ok)
            // A miss (processed now), then the hit, then the miss's twin: sent at once.
            let paths = ["/img/_/w:300/plain/\(source)@png", hitPath, "/health"]
            let port = Int(server.base.split(separator: ":").last!)!
            let answers = try await onOwnThread { try RawHTTP.pipelined(paths, port: port) }
            #expect(answers.map(\.status) == [200, 200, 200])
            #expect(answers[0].contentType == "image/png", "\(answers[0])")
            #expect(answers[1].contentType == "image/jpeg" && answers[1].length == hit.body.count, "\(answers[1])")
            #expect(answers[2].contentType?.hasPrefix("application/json") == true || answers[2].contentType?.hasPrefix("text/") == true,
                    "\(answers[2])")
        }
    }

    @Test func aThousandRequestsOnOneConnectionLeaveNoWorkBehind() async throws {
        try await withServer { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            // One connection, kept alive for every request.
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(
                connectionPool: .init(idleTimeout: .seconds(120), concurrentHTTP1ConnectionsPerHostSoftLimit: 1)))
            defer { _ = client.shutdown() }
            var statuses: [Int: Int] = [:]
            for i in 0..<1000 {
                // 40 different images (misses, processed), the rest hits.
                let request = HTTPClientRequest(url: "\(server.base)/img/_/w:\(40 + i % 40)/plain/\(source)@jpg")
                let response = try await client.execute(request, timeout: .seconds(60))
                _ = try await response.body.collect(upTo: 1 << 20)
                statuses[Int(response.status.code), default: 0] += 1
            }
            #expect(statuses == [200: 1000])
            // Every request's work is gone, while its connection stays open.
            #expect(try await gauge("darkroom_image_requests_in_progress", on: server) == 0)
            let open = try #require(try await gauge("darkroom_connections_watched", on: server))
            #expect(open >= 1 && open <= 2, "one client connection (and the test server's own /metrics client)")
            try await client.shutdown()
            // Closing the connection forgets it.
            #expect(await eventuallyAsync(120) { (try? await gauge("darkroom_connections_watched", on: server)) == 0 })
        }
    }

    /// Two servers in one process (as this suite runs dozens) each show
    /// their own figures: the limit each was given, and only the requests
    /// each answered.
    @Test func twoServersInOneProcessKeepTheirFiguresApart() async throws {
        try await withServer({ $0.memoryCacheBytes = 64 << 10 }) { small, origin in
            try await withServer({ $0.memoryCacheBytes = 96 << 10 }) { other, _ in
                let source = origin.url("/landscape.jpg").absoluteString
                for width in [60, 61, 62] {
                    #expect(try await small.get("/img/_/w:\(width)/plain/\(source)@png").status == .ok)
                }
                #expect(try await gauge("darkroom_memory_cache_limit_bytes", on: small) == Double(64 << 10))
                #expect(try await gauge("darkroom_memory_cache_limit_bytes", on: other) == Double(96 << 10))
                let smallText = String(decoding: try await small.get("/metrics").body, as: UTF8.self)
                let otherText = String(decoding: try await other.get("/metrics").body, as: UTF8.self)
                #expect(smallText.contains("darkroom_cache_misses_total{cache=\"memory\"} 3"), "\(smallText)")
                #expect(otherText.contains("darkroom_cache_misses_total{cache=\"memory\"} 0\n"), "\(otherText)")
                #expect(!otherText.contains("http_route=\"/img/**\""), "the other server answered no image")
            }
        }
    }

    /// A URL's hits after the first reuse the header fields made for it:
    /// every hit still carries its own `Date` and `X-Request-ID`, each once,
    /// a conditional hit is still answered by its conditions, and a
    /// `Cache-Control` that counts down to the URL's expiry is made anew.
    @Test func hitsOnOneURLKeepItsFieldsAndTheirOwn() async throws {
        try await withServer { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let path = "/img/_/w:70/plain/\(source)@jpg"
            let miss = try await server.get(path)
            #expect(miss.status == .ok)
            func fields(_ answer: TestServer.Answer) -> [String] {
                answer.headers.map { "\($0.name.lowercased()): \($0.value)" }
                    .filter { !$0.hasPrefix("date:") && !$0.hasPrefix("x-request-id:") }.sorted()
            }
            var ids: Set<String> = []
            for _ in 0..<3 {
                let hit = try await server.get(path)
                #expect(hit.status == .ok && hit.body == miss.body)
                #expect(fields(hit) == fields(miss))
                #expect(hit.headers["Date"].count == 1 && hit.headers[RequestID.header].count == 1, "\(hit.headers)")
                ids.insert(hit.header(RequestID.header) ?? "")
            }
            #expect(ids.count == 3, "an id of its own for every hit: \(ids)")
            let etag = try #require(miss.header("ETag"))
            #expect(try await server.get(path, headers: [("If-None-Match", etag)]).status == .notModified)
            #expect(try await server.get(path).body == miss.body, "the 304 did not become the URL's usual answer")

            func maxAge(_ answer: TestServer.Answer) -> Int? {
                answer.header("Cache-Control").flatMap { Int($0.split(separator: "=").last ?? "") }
            }
            let expiring = "/img/_/exp:\(Int(Date().timeIntervalSince1970) + 3000)/w:70/plain/\(source)@jpg"
            #expect(try await server.get(expiring).status == .ok)
            let first = try #require(maxAge(try await server.get(expiring)))
            let asked = Date()
            #expect(await eventuallyAsync(30) { Date().timeIntervalSince(asked) > 1.5 })
            let later = try #require(maxAge(try await server.get(expiring)))
            #expect(later < first, "max-age \(first), then \(later) over a second later")
        }
    }

    /// Hits are answered before the front door's parts watcher sees them,
    /// so the hits' handler keeps its rules: HTTP/1.0 answered as 1.0, a
    /// request without `Host` refused and nothing answered after it, and
    /// a connection idle after a hit closed at the keep-alive timeout.
    @Test func hitsKeepTheFrontDoorsRules() async throws {
        try await withServer({
            $0.keepAliveTimeout = .seconds(1)
            $0.readRequestTimeout = .seconds(600)
        }) { server, origin in
            let path = "/img/_/w:50/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg"
            let port = Int(server.base.split(separator: ":").last!)!
            let (warm, old, kept, refused, idle) = try await onOwnThread {
                // The miss and a first hit, each on a connection of its own:
                // a pooled one may meet the one-second keep-alive close
                // just as it is reused, on a busy machine.
                let warm = try (0..<2).map { _ in
                    let connection = try RawHTTP.Connection(port: port)
                    connection.send("GET \(path) HTTP/1.0\r\n\r\n")
                    _ = connection.waitForClose(within: 60)
                    return connection.text
                }
                let old = try RawHTTP.Connection(port: port)
                old.send("GET \(path) HTTP/1.0\r\n\r\n")
                _ = old.waitForClose(within: 60)
                let kept = try RawHTTP.Connection(port: port)
                kept.send("GET \(path) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                _ = kept.waitFor("HTTP/1.0 200", within: 60)
                kept.send("GET \(path) HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                _ = kept.waitFor("HTTP/1.0 200", count: 2, within: 60)
                // Refused, and the hit sent right behind it is not answered.
                let refused = try RawHTTP.Connection(port: port)
                refused.send("GET \(path) HTTP/1.1\r\n\r\nGET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = refused.waitForClose(within: 60)
                // Idle after a hit: closed at the keep-alive timeout, long
                // before the read timeout.
                let idle = try RawHTTP.Connection(port: port)
                idle.send("GET \(path) HTTP/1.1\r\nHost: a\r\n\r\n")
                let closed = idle.waitForClose(within: 60)
                return (warm, old.text, kept.text, refused.text, (closed, idle.text))
            }
            #expect(warm.allSatisfy { $0.hasPrefix("HTTP/1.0 200") }, "\(warm.map { $0.prefix(100) })")
            #expect(old.hasPrefix("HTTP/1.0 200") && old.lowercased().contains("connection: close"), "\(old.prefix(300))")
            #expect(kept.components(separatedBy: "HTTP/1.0 200").count == 3, "\(kept.prefix(300))")
            #expect(kept.lowercased().contains("connection: keep-alive"), "\(kept.prefix(300))")
            #expect(refused.hasPrefix("HTTP/1.1 400") && refused.contains("Host"), "\(refused.prefix(300))")
            #expect(!refused.contains("HTTP/1.1 200"), "one answer, the 400: \(refused.prefix(600))")
            #expect(idle.0 && idle.1.hasPrefix("HTTP/1.1 200"), "a connection idle after a hit stayed open: \(idle.1.prefix(100))")
        }
    }

    @Test func theMemoryCacheObeysItsLimit() async throws {
        try await withServer({ $0.memoryCacheBytes = 64 << 10 }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            for width in stride(from: 100, to: 240, by: 4) {
                let answer = try await server.get("/img/_/w:\(width)/plain/\(source)@png")
                #expect(answer.status == .ok)
            }
            let limit = try #require(try await gauge("darkroom_memory_cache_limit_bytes", on: server))
            let bytes = try #require(try await gauge("darkroom_memory_cache_bytes", on: server))
            let entries = try #require(try await gauge("darkroom_memory_cache_entries", on: server))
            #expect(limit == Double(64 << 10))
            #expect(bytes <= limit)
            #expect(bytes > 0 && entries >= 1)
            #expect(entries < 35, "35 PNGs of 10 KB and more cannot all fit in 64 KiB")
            let resident = try #require(try await gauge("darkroom_process_resident_memory_bytes", on: server))
            #expect(resident > Double(1 << 20))
        }
    }
}
