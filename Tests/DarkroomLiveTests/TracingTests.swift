import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// `darkroom serve` with the usual OpenTelemetry variables sends its traces
/// to a real OTLP receiver: a cold request's trace holds every stage under
/// the request's span, continuing the `traceparent` it came with; a hit
/// says which cache answered; a failed source's download is an error; and
/// the origin and the S3 store are sent the trace on.
@Suite(.offCooperativePool) struct TracingTests {
    @Test func aColdRequestAHitAndAFailureAsTraces() async throws {
        let receiver = try await OTLPReceiver.start()
        try await cleaningUp({ await receiver.stop() }) { () async throws in
            // The origin serves the photo at its root, and as an S3 store's
            // path-style object (bucket "shelf"); it ignores the signature.
            let root = try Fixtures.temporaryFolder("tracing-origin")
            defer { try? FileManager.default.removeItem(at: root) }
            try FileManager.default.createDirectory(at: root.appendingPathComponent("shelf"), withIntermediateDirectories: true)
            let photo = try Corpus.data("Aqua.jpg")
            try photo.write(to: root.appendingPathComponent("Aqua.jpg"))
            try photo.write(to: root.appendingPathComponent("shelf/Aqua.jpg"))
            let origin = try await OriginServer.start(serving: root)
            try await cleaningUp({ await origin.stop() }) { () async throws in

                let folder = try Fixtures.temporaryFolder("tracing-serve")
                defer { try? FileManager.default.removeItem(at: folder) }
                let log = folder.appendingPathComponent("serve.log")
                let process = try DarkroomProcess.start(
                    ["serve", "--port", "0", "--cache-dir", folder.appendingPathComponent("cache").path, "--allow-private-networks",
                     "--s3-sources", "shelf", "--s3-endpoint", origin.url("/").absoluteString],
                    log: log,
                    environment: ["OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_SERVICE_NAME": "darkroom-traced",
                                  "OTEL_BSP_SCHEDULE_DELAY": "100", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test-secret",
                                  "AWS_REGION": "us-east-1"])
                try await cleaningUp({ await DarkroomProcess.stop(process) }) { () async throws in
                    let port = try await ServingProcess.listening(process, log: log).port
                    let client = HTTPClient(eventLoopGroupProvider: .singleton)
                    try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                        let server = StartingServer(client: client, port: port)
                        #expect(try await server.get("/health").status == 200)

                        // Each request continues a trace of its own, as a proxy in front would send.
                        func traced(_ path: String, trace: String) async throws -> UInt {
                            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
                            request.headers.add(name: "traceparent", value: "00-\(trace)-\(Self.callerSpan)-01")
                            return try await client.execute(request, timeout: .seconds(120)).status.code
                        }
                        let image = "/img/_/rs:fit:300:300/plain/\(origin.url("/Aqua.jpg").absoluteString)@jpg"
                        let (cold, hit, failed, s3) = (Self.trace(1), Self.trace(2), Self.trace(3), Self.trace(4))
                        #expect(try await traced(image, trace: cold) == 200)
                        #expect(try await traced(image, trace: hit) == 200)
                        #expect(try await traced("/img/_/rs:fit:300:300/plain/\(origin.url("/missing.jpg").absoluteString)@jpg", trace: failed) == 404)
                        #expect(try await traced("/img/_/rs:fit:200:200/plain/s3://shelf/Aqua.jpg@jpg", trace: s3) == 200)

                        // The cold trace, whole: its stores end after the answer has gone.
                        let expected = ["darkroom.job", "darkroom.fetch", "darkroom.queue.download", "darkroom.download", "darkroom.queue.filtration",
                                        "darkroom.decode", "darkroom.process", "darkroom.encode", "darkroom.store.memory", "darkroom.store.disk"]
                        let arrived = await eventually(120) {
                            let names = Set(receiver.spans().filter { $0.traceID == cold }.map(\.name))
                            return expected.allSatisfy(names.contains) && [cold, s3].allSatisfy { trace in receiver.spans().contains { $0.traceID == trace && $0.kind == 3 } }
                                && receiver.spans().contains { $0.traceID == s3 && $0.name == "darkroom.download" }
                                && [hit, failed].allSatisfy { trace in receiver.spans().contains { $0.traceID == trace && $0.kind == 2 } }
                        }
                        let spans = receiver.spans()
                        try #require(arrived, "spans received: \(spans)\nserver log: \(String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self).suffix(3000))")

                        // The request's span continues the caller's, and names the route.
                        let coldSpans = spans.filter { $0.traceID == cold }
                        let request = try #require(coldSpans.first { $0.kind == 2 })
                        #expect(request.parentSpanID == Self.callerSpan)
                        #expect(request.name == "GET /img/**")
                        #expect(request.attributes["http.route"] == "/img/**")
                        #expect(request.attributes["http.response.status_code"] == "200")
                        #expect(request.attributes["darkroom.cache"] == "none")
                        #expect(request.resource["service.name"] == "darkroom-traced")
                        // Every stage under its parent: the job under the request; the
                        // fetch, the processing queue, decode, process, encode and the
                        // stores under the job; the download queue and the download under
                        // the fetch.
                        func named(_ name: String) throws -> OTLPReceiver.ReceivedSpan { try #require(coldSpans.first { $0.name == name }, "\(coldSpans)") }
                        let job = try named("darkroom.job")
                        #expect(job.parentSpanID == request.spanID)
                        for name in ["darkroom.fetch", "darkroom.queue.filtration", "darkroom.decode", "darkroom.process", "darkroom.encode",
                                     "darkroom.store.memory", "darkroom.store.disk"] {
                            #expect(try named(name).parentSpanID == job.spanID, "\(name)")
                        }
                        let fetch = try named("darkroom.fetch")
                        let download = try named("darkroom.download")
                        #expect(try named("darkroom.queue.download").parentSpanID == fetch.spanID)
                        #expect(download.parentSpanID == fetch.spanID)
                        #expect(download.attributes["url.full"] == origin.url("/Aqua.jpg").absoluteString)
                        #expect(download.attributes["darkroom.bytes"] == "\(photo.count)")
                        // The origin was sent the trace: its parent is the HTTP client's
                        // span (AsyncHTTPClient's), under the download.
                        let clientCall = try #require(coldSpans.first { $0.kind == 3 }, "\(coldSpans)")
                        #expect(clientCall.parentSpanID == download.spanID)
                        #expect(origin.lastHeaders("/Aqua.jpg")?["traceparent"] == "00-\(cold)-\(clientCall.spanID)-01", "\(coldSpans)")

                        // The hit: answered by the memory cache, with no work under it.
                        let hitSpans = spans.filter { $0.traceID == hit }
                        #expect(hitSpans.count == 1 && hitSpans.first?.attributes["darkroom.cache"] == "memory", "\(hitSpans)")

                        // The failed source: a 404 whose download is an error that says why.
                        let failedSpans = spans.filter { $0.traceID == failed }
                        #expect(failedSpans.first { $0.kind == 2 }?.attributes["http.response.status_code"] == "404")
                        let failedDownload = failedSpans.first { $0.name == "darkroom.download" }
                        #expect(failedDownload?.status == 2 && failedDownload?.attributes["darkroom.error.kind"] == "httpStatus", "\(failedSpans)")

                        // The S3 source: the store was sent the trace too.
                        let s3Download = try #require(spans.first { $0.traceID == s3 && $0.name == "darkroom.download" })
                        let s3Call = try #require(spans.first { $0.traceID == s3 && $0.kind == 3 && $0.parentSpanID == s3Download.spanID })
                        #expect(origin.lastHeaders("/shelf/Aqua.jpg")?["traceparent"] == "00-\(s3)-\(s3Call.spanID)-01")
                    }
                }
            }
        }
    }

    static let callerSpan = "00f067aa0ba902b7"
    static func trace(_ n: Int) -> String { "4bf92f3577b34da6a3ce929d0e0e" + String(format: "%04x", n) }
}
