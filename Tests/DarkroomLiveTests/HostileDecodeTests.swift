import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// Files made to cost a decoder far more than their size (scripts/make-hostile),
/// asked of a running `darkroom serve` as an attacker would: each gets the
/// answer its shape calls for (a refusal that names the structure limit it
/// passed, read before any decoding, or the image, decoded to its last
/// pixel), and the server's resident memory never rises past the request
/// budget while it answers one. The processing time limit is one no busy
/// machine reaches: none of these shapes is stopped by the clock, and the
/// refusals' reasons show they came before a decode.
@Suite(.serialized) struct HostileDecodeTests {
    /// The memory budget the server runs with here.
    static let budgetMiB = 256

    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var options: String
        var status: UInt
        /// Words the answer's reason must have (an error's), or the size an
        /// image must have (a success's).
        var reason: String? = nil
        var size: (Int, Int)? = nil
        var description: String { "\(file) \(options)" }
    }

    static let cases: [Case] = [
        // 20,001 scans: refused from its markers, before either engine reads one.
        Case(file: "many-scans.jpg", options: "rs:fit:200:200", status: 422, reason: "20001 scans, over the limit of 100"),
        Case(file: "many-scans.jpg", options: "rs:fit:200:200/f:webp", status: 422, reason: "20001 scans"),
        // 100 scans in all: read, by either engine, within the limit.
        Case(file: "scans-at-limit.jpg", options: "rs:fit:200:200", status: 200, size: (200, 200)),
        Case(file: "scans-at-limit.jpg", options: "rs:fit:200:200/f:png", status: 200),
        // Coefficients over the budget: refused before anything is allocated.
        Case(file: "coefficient-hog.jpg", options: "rs:fit:200:200", status: 422, reason: "coefficients"),
        Case(file: "empty-refinements.jpg", options: "rs:fit:200:200/f:webp", status: 422, reason: "coefficients"),
        // A huge scaled image asked for one row: only that row is made.
        Case(file: "flat-8192x6000.jpg", options: "rs:fill:8192:1", status: 200, size: (8192, 1)),
        // 49,000 rows squeezed into two: the box holds one row, not all.
        Case(file: "tall-1000x49000.jpg", options: "rs:force:1000:2", status: 200, size: (1000, 2)),
        // 147 MB of raw pixels from 143 KB: streamed by libvips.
        Case(file: "inflate-bomb.png", options: "rs:fit:200:200", status: 200, size: (200, 200)),
        // 1,000 frames of 4 MP: refused for the pixels of the frames it would decode...
        Case(file: "frame-bomb.gif", options: "rs:fit:200:200/f:gif", status: 422, reason: "in each of 100 frames"),
        // ...and its first frame answered as a still image.
        Case(file: "frame-bomb.gif", options: "rs:fit:200:200/f:jpg", status: 200, size: (200, 200)),
    ]

    @Test func eachShapeGetsItsAnswerWithinTheBudget() async throws {
        let shapes = try await HostileShapes.folder()
        let folder = try Fixtures.temporaryFolder("darkroom-hostile-decode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: shapes)
        defer { Task { await origin.stop() } }
        let port = try LoopbackPort.free()
        let server = try DarkroomProcess.start(["serve", "--port", "\(port)", "--cache-dir", folder.appendingPathComponent("cache").path,
                                                "--allow-private-networks",
                                                "--max-request-memory-mb", "\(Self.budgetMiB)", "--memory-cache-mb", "16"],
                                               log: folder.appendingPathComponent("serve.log"))
        defer { Task { await DarkroomProcess.stop(server) } }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { Task { try? await client.shutdown() } }
        func get(_ path: String) async throws -> (status: UInt, body: Data) {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(600))
            return (response.status.code, Data(buffer: try await response.body.collect(upTo: 20 << 20)))
        }
        try #require(await eventuallyAsync(60) { (try? await get("/health"))?.status == 200 }, "the server did not start")
        // Warm: libvips started, its first allocations made.
        _ = try await get("/img/_/rs:fit:100:100/plain/\(plainSource(origin.url("/scans-at-limit.jpg")))@png")

        for c in Self.cases {
            let pid = server.processIdentifier
            try #require(ProcessMemory.resetPeak(of: pid), "the peak resident size cannot be reset here")
            let before = try #require(ProcessMemory.peakAndCurrent(of: pid)).current
            let answer = try await get("/img/_/\(c.options)/plain/\(plainSource(origin.url("/\(c.file)")))")
            let peak = try #require(ProcessMemory.peakAndCurrent(of: pid)).peak
            let text = String(decoding: answer.body.prefix(300), as: UTF8.self)

            #expect(answer.status == c.status, "\(c): \(answer.status) \(text)")
            if let reason = c.reason { #expect(text.contains(reason), "\(c): \(text)") }
            if let size = c.size, answer.status == 200 {
                let decoded = try ImageSize.of(answer.body)
                #expect(decoded.width == size.0 && decoded.height == size.1, "\(c): \(decoded)")
            }
            #expect(peak - before <= Self.budgetMiB << 20, "\(c): resident memory rose \((peak - before) >> 20) MiB")
        }
        #expect(server.isRunning)
        #expect(try await get("/health").status == 200, "the server goes on")
    }
}
