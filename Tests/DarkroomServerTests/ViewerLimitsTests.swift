import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// Gallery viewers are bounded per client address and in all; one that
/// only gets refusals is not kept alive by them; one whose page never
/// opened its events is swept soon.
@Suite(.offCooperativePool) struct ViewerLimitsTests {
    @Test func viewersAreBoundedPerClientAndTheRestStillServed() async throws {
        let server = try await TestServer.start()
        try await cleaningUp({ await server.stop() }) { () async throws in
            var made: [String] = []
            for _ in 0..<16 {
                let answer = try RawHTTP.post("/api/viewers", json: "{}", port: server.port, from: "127.0.0.6")
                #expect(answer.status == 201, "\(answer)")
                made.append(answer.body)
            }
            let refused = try RawHTTP.post("/api/viewers", json: "{}", port: server.port, from: "127.0.0.6")
            #expect(refused.status == 429 && refused.body.contains("this address has its most viewers (16)"), "\(refused)")
            // Another address is served.
            #expect(try RawHTTP.post("/api/viewers", json: "{}", port: server.port, from: "127.0.0.7").status == 201)
            let status = String(decoding: try await server.get("/api/status").body, as: UTF8.self)
            #expect(status.contains("\"viewers\":17"), "\(status)")
        }
    }

    @Test func aViewerThatNeverConnectsOrOnlyGetsRefusalsIsSwept() async throws {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        let pipeline = try ImagePipeline(configuration: configuration)
        let gallery = Gallery(list: try Gallery.sampleList(), pipeline: pipeline)
        let registry = ViewerRegistry(maxViewers: 2, maxPerClient: 2)
        let quiet = try registry.make(gallery: gallery, client: "a").get()
        let reading = try registry.make(gallery: gallery, client: "b").get()
        reading.markConnected()
        // In all: a third is refused.
        guard case .failure(let refusal) = registry.make(gallery: gallery, client: "c") else {
            Issue.record("a third viewer was made past the limit of 2")
            return
        }
        #expect(refusal.message.contains("most viewers (2)"))
        // Looking a viewer up (as a refused request does) is not hearing from it.
        _ = registry.viewer(quiet.id)
        await registry.closeIdle(after: .seconds(120), unconnected: .zero)
        #expect(registry.viewer(quiet.id) == nil, "a viewer whose page never connected was kept")
        #expect(registry.viewer(reading.id) != nil, "a connected viewer heard from just now was closed")
        await registry.remove(reading.id)
        #expect(registry.count == 0)
        await pipeline.shutdown()
    }
}
