import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import TestSupport

@Suite struct OperationsTests {
    /// The figures the requests made must have moved: one download of the
    /// photo's bytes, one memory miss, one 404 for the bad option, and the
    /// queues back at zero.
    @Test func healthAndMetrics() async throws {
        try await RoutedServer.withOrigin(serving: Corpus.root) { server, origin in
            let health = try await server.get("/health")
            #expect(health.status == .ok)
            #expect(String(decoding: health.body, as: UTF8.self).contains("\"status\":\"ok\""))
            // The suite's build has every trait: /health names them.
            #expect(String(decoding: health.body, as: UTF8.self).contains("\"features\":\"faces,video\""),
                    "\(String(decoding: health.body, as: UTF8.self))")
            let photo = origin.url("/photos/Aqua.jpg").absoluteString
            #expect(try await server.get("/img/_/w:32/plain/\(photo)").status == .ok)
            #expect(try await server.get("/img/_/w:32/plain/\(photo)").status == .ok)
            #expect(try await server.get("/img/_/nope:1/plain/\(photo)").status == .notFound)
            let metrics = PrometheusText(String(decoding: try await server.get("/metrics").body, as: UTF8.self))
            let bytes = try Corpus.data("Aqua.jpg").count
            #expect(metrics.value("darkroom_download_bytes_total") == Double(bytes), "\(metrics.text)")
            #expect(metrics.value("darkroom_cache_misses_total", ["cache": "memory"]) == 1)
            #expect(metrics.value("darkroom_queue_waiting") == 0 && metrics.value("darkroom_queue_running") == 0)
            #expect(metrics.value("hb_requests", ["http_response_status_code": "404"]) == 1)
            #expect((metrics.value("hb_requests", ["http_route": "/img/**", "http_response_status_code": "200"]) ?? 0) >= 1)
            #expect((metrics.value("http_server_request_duration_count", ["http_route": "/health"]) ?? 0) >= 1)
        }
    }

    @Test func theSampleListIsServedByTheServerItself() async throws {
        try await RoutedServer.with { server in
            let list = String(decoding: try await server.get("/api/list").body, as: UTF8.self)
            #expect(list.contains("Aqua") && list.contains("Missing Photo") && list.contains("Not A Photo"))
            let photo = try await server.get("/samples/photos/Aqua.jpg")
            #expect(photo.status == .ok)
            // Its photos are read in process (local:///photos/...), through the
            // same pipeline as remote ones, and an image URL can name them.
            let image = try await server.get("/img/_/w:40/plain/local:///photos/Aqua.jpg@jpg")
            #expect(image.status == .ok, "\(String(decoding: image.body, as: UTF8.self))")
            #expect(try await server.get("/api/rows/0/image").status == .ok)
            // Nothing outside the sample folder.
            let escape = try await server.get("/img/_/w:40/plain/local:///photos/..%2F..%2F..%2FPackage.swift@jpg")
            #expect(escape.status == .notFound, "\(escape.status)")
            // Over the private-address check, as before: the server's own
            // address (the host and port its configuration names) is not
            // exempt any more.
            let configured = ServerConfiguration()
            let own = try await server.get("/img/_/w:40/plain/http://\(configured.host):\(configured.port)/samples/photos/Aqua.jpg@jpg")
            #expect(own.status == .notFound && String(decoding: own.body, as: UTF8.self).contains("private addresses"), "\(own.status)")
        }
    }
}
