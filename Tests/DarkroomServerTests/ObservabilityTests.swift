import AsyncHTTPClient
import Darkroom
@testable import DarkroomServer
import Foundation
import Logging
import ServerTestSupport
import Synchronization
import Testing
import TestSupport
import DarkroomImaging

/// What an operator reads: request ids in answers and log lines, JSON log
/// lines, and /metrics on an address of its own.
@Suite struct ObservabilityTests {
    static let photo = "local:///photos/Aqua.jpg"

    /// Lines a JSON logger wrote, parsed.
    final class LogLines: Sendable {
        private let lines = Locked<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        var objects: [[String: Any]] {
            all.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        }
        func logger(level: Logger.Level = .debug) -> Logger {
            var logger = Logger(label: "darkroom") { label in
                JSONLogHandler(label: label, destination: .lines { line in self.lines.withLock { $0.append(line) } })
            }
            logger.logLevel = level
            return logger
        }
    }

    @Test func aJSONLineIsOneObjectWhateverItsMessageHolds() throws {
        let lines = LogLines()
        let logger = lines.logger()
        logger.warning("a \"quoted\" URL\nwith a second line\u{1}", metadata: ["url": "/img/\"x\"", "level": "forged", "count": "3",
                                                                             "nested": ["a": ["1", "2"]]])
        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix("}\n") && line.dropLast().contains("\n") == false, "\(line)")
        let object = try #require(lines.objects.first)
        #expect(object["level"] as? String == "warning")
        #expect(object["logger"] as? String == "darkroom")
        #expect(object["message"] as? String == "a \"quoted\" URL\nwith a second line\u{1}")
        #expect(object["url"] as? String == "/img/\"x\"")
        // A field cannot overwrite the line's own.
        #expect(object["metadata.level"] as? String == "forged")
        #expect((object["nested"] as? [String: Any])?["a"] as? [String] == ["1", "2"])
        let time = try #require(object["time"] as? String)
        let parsed = try #require(ISO8601DateFormatter.withFractionalSeconds.date(from: time), "\(time)")
        #expect(abs(parsed.timeIntervalSinceNow) < 600)
    }

    @Test func everyAnswerCarriesTheRequestsIdOrANewOne() async throws {
        let server = try await TestServer.start()
        // Carried: kept, on a route, on a miss and on a memory-cache hit
        // (answered before the router).
        let image = "/img/_/rs:fit:64:64/plain/\(Self.photo)@jpg"
        for path in ["/health", image, image, "/img/_/nope:1/plain/\(Self.photo)"] {
            let answer = try await server.get(path, headers: [("X-Request-ID", "cdn-7f3a.42")])
            #expect(answer.header("X-Request-ID") == "cdn-7f3a.42", "\(path)")
        }
        // None, or one no log line should hold: a new one each time.
        var seen = Set<String>()
        for carried in [nil, String(repeating: "a", count: 129), "a\"b", "a b"] {
            for path in ["/health", image] {
                let answer = try await server.get(path, headers: carried.map { [("X-Request-ID", $0)] } ?? [])
                let id = try #require(answer.header("X-Request-ID"), "\(path)")
                #expect(id.count == 32 && id.allSatisfy(\.isHexDigit), "\(id)")
                #expect(seen.insert(id).inserted)
            }
        }
        await server.stop()
    }

    @Test func aRequestsLogLinesCarryItsId() async throws {
        let lines = LogLines()
        let server = try await TestServer.start(logger: lines.logger())
        // A non-boolean enlarge is read as false, with a warning logged.
        let answer = try await server.get("/img/_/rs:fit:64:64:maybe/plain/\(Self.photo)@jpg", headers: [("X-Request-ID", "trace-me")])
        #expect(answer.status == .ok)
        let warning = lines.objects.first { ($0["message"] as? String)?.contains("not a boolean") == true }
        #expect(warning?["request_id"] as? String == "trace-me", "\(lines.all)")
        #expect(warning?["level"] as? String == "warning")
        await server.stop()
    }

    /// Memory-cache hits are answered on the event loop, before the router,
    /// and count and log as every other answer: a dashboard sees the most
    /// frequent answer, and the access log no longer turns that path off.
    @Test func memoryHitsCountAndLogLikeEveryAnswer() async throws {
        let lines = LogLines()
        let server = try await TestServer.start(logger: lines.logger(level: .info)) { $0.accessLog = true }
        let image = "/img/_/rs:fit:48:48/plain/\(Self.photo)@jpg"
        let labels = ["http_route": "/img/**", "http_request_method": "GET", "http_response_status_code": "200"]
        func read() async -> PrometheusText {
            PrometheusText(String(decoding: (try? await server.get("/metrics").body) ?? Data(), as: UTF8.self))
        }
        // The miss, counted by the router once its body is written.
        #expect(try await server.get(image, headers: [("X-Request-ID", "hit-me")]).status == .ok)
        var metrics = PrometheusText("")
        let missCounted = await eventuallyAsync {
            metrics = await read()
            return metrics.value("hb_requests", labels) == 1
        }
        #expect(missCounted, "\(metrics.text)")
        // Three hits: held by their event loop, and handed over before
        // /metrics is read, so the very next read counts them.
        for _ in 0..<3 { #expect(try await server.get(image, headers: [("X-Request-ID", "hit-me")]).status == .ok) }
        metrics = await read()
        #expect(metrics.value("hb_requests", labels) == 4 && metrics.value("http_server_request_duration_count", labels) == 4, "\(metrics.text)")
        // Only the /metrics request reading it is still active.
        #expect(metrics.value("http_server_active_requests", ["http_request_method": "GET"]) == 1, "\(metrics.text)")
        let access = lines.objects.filter { $0["message"] as? String == "Request" && $0["hb.request.path"] as? String == image }
        #expect(access.count == 4, "\(lines.all)")
        #expect(access.allSatisfy { $0["hb.response.status"] as? String == "200" && $0["request_id"] as? String == "hit-me" && $0["duration_ms"] != nil },
                "\(access)")
        // The first is the route's miss; the others are hits on the event loop.
        #expect(access.filter { $0["answered_from"] as? String == "memory cache" }.count == 3, "\(access)")
        await server.stop()
    }

    /// An image that cannot be had is answered by its route (with Vary,
    /// or a fallback image), not thrown: the request metrics count it as
    /// an error all the same, by its status.
    @Test func imageErrorsCountAsErrors() async throws {
        let server = try await TestServer.start()
        try await cleaningUp({ await server.stop() }) { () async throws in
            #expect(try await server.get("/img/_/w:10/plain/local:///photos/missing.jpg@jpg").status == .notFound)
            let labels = ["http_route": "/img/**", "http_request_method": "GET", "error_type": "404"]
            var text = ""
            let counted = await eventuallyAsync {
                text = String(decoding: (try? await server.get("/metrics").body) ?? Data(), as: UTF8.self)
                return PrometheusText(text).value("hb_request_errors", labels) == 1
            }
            #expect(counted, "\(text.split(separator: "\n").filter { $0.contains("error") })")
        }
    }

    @Test func metricsCanHaveAnAddressOfTheirOwn() async throws {
        let server = try await TestServer.start { $0.metricsAddress = ("127.0.0.1", 0) }
        #expect(try await server.get("/img/_/rs:fit:64:64/plain/\(Self.photo)@jpg").status == .ok)
        #expect(try await server.get("/metrics").status == .notFound)
        let metricsPort = try #require(server.metricsPort)
        let response = try await server.client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(metricsPort)/metrics"), timeout: .seconds(60))
        #expect(response.status == .ok)
        let metrics = PrometheusText(String(buffer: try await response.body.collect(upTo: 10 << 20)))
        // The main address's figures, read on the other one.
        #expect((metrics.value("hb_requests", ["http_route": "/img/**", "http_response_status_code": "200"]) ?? 0) >= 1, "\(metrics.text)")
        await server.stop()
    }
}

extension ISO8601DateFormatter {
    static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
