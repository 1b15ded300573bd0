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
    /// The longest any shape's answer may take.
    static let answerBound: Duration = .seconds(120)
    /// What resident memory may stay above its warm size once the server
    /// is idle again.
    static let keptMargin = 32 << 20

    struct Case: Sendable, CustomStringConvertible {
        var file: String
        var options: String
        var status: UInt
        /// Words the answer's reason must have (an error's), or the size an
        /// image must have (a success's).
        var reason: String? = nil
        var size: (Int, Int)? = nil
        /// The request's path before the source, when it is not an image
        /// URL with these options (`/info`, a watermark's URL).
        var route: String? = nil
        var description: String { "\(file) \(route ?? options)" }
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
        // 160,000 frames of one pixel: refused from the container's own
        // count, before libvips walks them.
        Case(file: "many-frames.webp", options: "rs:fit:100:100", status: 422, reason: "more than 10000 frames"),
        Case(file: "many-frames.webp", options: "", status: 422, reason: "more than 10000 frames", route: "/info/_"),
        Case(file: "many-frames.gif", options: "rs:fit:100:100/f:gif", status: 422, reason: "more than 10000 frames"),
        // 392 MB of 16-bit pixels decoded whole: refused from its header.
        Case(file: "interlaced-16bit.png", options: "rs:fit:200:200", status: 422, reason: "whole 7000 x 7000"),
        // One pixel extended to the result limit: the encoders that hold
        // the whole picture are refused before it is made; the ones that
        // write rows as they come answer.
        Case(file: "one-pixel.png", options: "rs:fit:8192:8192:0:1/f:avif", status: 422, reason: "8192 x 8192 image as AVIF"),
        Case(file: "one-pixel.png", options: "rs:fit:8192:8192:0:1/f:webp", status: 422, reason: "8192 x 8192 image as WEBP"),
        Case(file: "one-pixel.png", options: "rs:fit:8192:8192:0:1/f:gif", status: 422, reason: "8192 x 8192 image as GIF"),
        Case(file: "one-pixel.png", options: "rs:fit:8192:8192:0:1/f:png", status: 200, size: (8192, 8192)),
        Case(file: "one-pixel.png", options: "rs:fit:8192:8192:0:1/f:jpg", status: 200, size: (8192, 8192)),
        Case(file: "one-pixel.png", options: "rs:fit:1024:1024:0:1/f:avif", status: 200, size: (1024, 1024)),
    ]

    /// A watermark from a URL counts in the request's budget as a source does.
    static func watermarkCases(origin: OriginServer) -> [Case] {
        let mark = Data(origin.url("/interlaced-16bit.png").absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return [Case(file: "scans-at-limit.jpg", options: "", status: 422, reason: "watermark", route: "/img/_/rs:fit:200:200/wm:1/wmu:\(mark)")]
    }

    /// HEIF and AVIF shapes (`HostileHEIF`), refused from their boxes before
    /// libheif opens them: as a source, through `/info`, and as a watermark.
    static func heifCases(origin: OriginServer) -> [Case] {
        let selfListing = Data(origin.url("/self-listing.avif").absoluteString.utf8).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return [
            // A grid that lists itself: libheif would recurse with a thread a level until the process aborts.
            Case(file: "self-listing.avif", options: "rs:fit:200:200", status: 422, reason: "refers to itself"),
            Case(file: "self-listing.avif", options: "", status: 422, reason: "refers to itself", route: "/info/_"),
            Case(file: "valid-grid.avif", options: "", status: 422, reason: "refers to itself", route: "/img/_/rs:fit:200:200/wm:1/wmu:\(selfListing)"),
            Case(file: "grid-of-grids.avif", options: "rs:fit:200:200", status: 422, reason: "grid inside a grid"),
            Case(file: "many-references.avif", options: "rs:fit:200:200", status: 422, reason: "over the limit of 256"),
            Case(file: "zero-tiles.avif", options: "rs:fit:200:200", status: 422, reason: "0 x 0"),
            // One full-chroma tile 169 times: decoded at 12.4 bytes a pixel,
            // refused from the estimate that reads the chroma from its box.
            Case(file: "full-chroma-grid.avif", options: "rs:fit:200:200", status: 422, reason: "whole 6656 x 6656"),
            // A grid as cameras write them decodes.
            Case(file: "valid-grid.avif", options: "rs:fit:200:200/f:png", status: 200, size: (200, 133)),
        ]
    }

    @Test func eachShapeGetsItsAnswerWithinTheBudget() async throws {
        let shapes = try await HostileShapes.folder()
        let folder = try Fixtures.temporaryFolder("darkroom-hostile-decode")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: shapes)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let heif = folder.appendingPathComponent("heif")
            try FileManager.default.createDirectory(at: heif, withIntermediateDirectories: true)
            try HostileHEIF.write(to: heif)
            let heifOrigin = try await OriginServer.start(serving: heif)
            try await cleaningUp({ await heifOrigin.stop() }) { () async throws in
                let arguments = ["serve", "--port", "0", "--cache-dir", folder.appendingPathComponent("cache").path,
                                 "--allow-private-networks",
                                 "--max-request-memory-mb", "\(Self.budgetMiB)", "--memory-cache-mb", "16"]
                let log = folder.appendingPathComponent("serve.log")
                // At most 512 threads where the machine lets the test say so: a
                // decoder that starts threads without end (libheif on a grid that
                // lists itself) then ends this server, not the machine.
                let tasks = TaskCgroup.make(maxTasks: 512)
                #expect(tasks != nil || !Variants.cgroupsRequired, "this run requires the pids cgroup the machine did not allow")
                let server = try tasks.map { try $0.start(DarkroomProcess.binary, arguments, log: log) } ?? DarkroomProcess.start(arguments, log: log)
                // The cgroup goes once the server has: a cgroup with a task in it stays.
                try await cleaningUp({ await DarkroomProcess.stop(server); tasks?.remove() }) { () async throws in
                    let port = try await ServingProcess.listening(server, log: log).port
                    let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
                    try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                        func get(_ path: String) async throws -> (status: UInt, body: Data) {
                            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(600))
                            return (response.status.code, Data(buffer: try await response.body.collect(upTo: 20 << 20)))
                        }
                        try #require(await eventuallyAsync(60) { (try? await get("/health"))?.status == 200 }, "the server did not start")
                        // Warm: libvips started, its first allocations made.
                        _ = try await get("/img/_/rs:fit:100:100/plain/\(plainSource(origin.url("/scans-at-limit.jpg")))@png")
                        let warm = try #require(ProcessMemory.peakAndCurrent(of: server.processIdentifier)).current

                        let cases = (Self.cases + Self.watermarkCases(origin: origin)).map { ($0, origin) } + Self.heifCases(origin: heifOrigin).map { ($0, heifOrigin) }
                        for (c, source) in cases {
                            let pid = server.processIdentifier
                            try #require(ProcessMemory.resetPeak(of: pid), "the peak resident size cannot be reset here")
                            let before = try #require(ProcessMemory.peakAndCurrent(of: pid)).current
                            let started = ContinuousClock.now
                            let answer = try await get("\(c.route ?? "/img/_/\(c.options)")/plain/\(plainSource(source.url("/\(c.file)")))")
                            let took = ContinuousClock.now - started
                            let peak = try #require(ProcessMemory.peakAndCurrent(of: pid)).peak
                            // Each answer comes in seconds on an idle machine; the bound
                            // is far above that (a busy machine), and far below what
                            // these shapes once cost (minutes to days).
                            #expect(took < Self.answerBound, "\(c): answered after \(took)")
                            let text = String(decoding: answer.body.prefix(300), as: UTF8.self)

                            #expect(answer.status == c.status, "\(c): \(answer.status) \(text)")
                            if let reason = c.reason { #expect(text.contains(reason), "\(c): \(text)") }
                            if let size = c.size, answer.status == 200 {
                                let decoded = try ImageSize.of(answer.body)
                                #expect(decoded.width == size.0 && decoded.height == size.1, "\(c): \(decoded)")
                            }
                            #expect(!Variants.measuresMemory || peak - before <= Self.budgetMiB << 20, "\(c): resident memory rose \((peak - before) >> 20) MiB")
                        }
                        // Nothing kept: once idle, the server gives back what the answers
                        // took (malloc's free memory is trimmed after a burst of work).
                        let settled = await eventuallyAsync(60) {
                            (ProcessMemory.peakAndCurrent(of: server.processIdentifier)?.current ?? .max) <= warm + Self.keptMargin
                        }
                        let after = ProcessMemory.peakAndCurrent(of: server.processIdentifier)?.current ?? 0
                        #expect(settled || !Variants.measuresMemory, "resident \(after >> 20) MiB after the shapes, \(warm >> 20) MiB when warm")
                        #expect(server.isRunning, "\(String(decoding: (try? Data(contentsOf: log))?.suffix(2000) ?? Data(), as: UTF8.self))")
                        #expect(try await get("/health").status == 200, "the server goes on")
                        #expect((tasks?.refusedTasks ?? 0) == 0, "the server tried to start more than 512 threads")
                    }
                }
            }
        }
    }
    /// `darkroom process` refuses each HEIF shape from its boxes with its
    /// reason, with at most 128 threads where the machine lets the test say
    /// so (a regression ends that process, not the machine), and decodes
    /// the grid cameras write.
    @Test func theCommandLineRefusesEachHEIFShapeBeforeAnyDecoder() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-hostile-heif")
        defer { try? FileManager.default.removeItem(at: folder) }
        try HostileHEIF.write(to: folder)
        let expected = ["self-listing.avif": "refers to itself", "grid-of-grids.avif": "inside a grid",
                        "many-references.avif": "over the limit of 256", "zero-tiles.avif": "0 x 0"]
        for (name, _) in try HostileHEIF.all() {
            let out = folder.appendingPathComponent(name + ".png")
            let log = folder.appendingPathComponent(name + ".log")
            let arguments = ["process", folder.appendingPathComponent(name).path, "-o", out.path, "--resize", "200", "--format", "png"]
            let tasks = TaskCgroup.make(maxTasks: 128)
            #expect(tasks != nil || !Variants.cgroupsRequired, "this run requires the pids cgroup the machine did not allow")
            let process = try tasks.map { try $0.start(DarkroomProcess.binary, arguments, log: log) } ?? DarkroomProcess.start(arguments, log: log)
            try await onOwnThread { process.waitUntilExit() }
            defer { tasks?.remove() }
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            #expect((tasks?.refusedTasks ?? 0) == 0, "\(name): more than 128 threads were asked for")
            #expect(process.terminationReason == .exit, "\(name): ended by signal \(process.terminationStatus): \(output)")
            if let words = expected[name] {
                #expect(process.terminationStatus == 1 && output.contains(words), "\(name): \(process.terminationStatus) \(output)")
                #expect(!FileManager.default.fileExists(atPath: out.path))
            } else {
                #expect(process.terminationStatus == 0, "\(name): \(output)")
                #expect(try ImageSize.of(Data(contentsOf: out)).width == 200)
            }
        }
    }
}
