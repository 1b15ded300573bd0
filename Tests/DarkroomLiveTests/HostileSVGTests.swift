import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// SVG documents that librsvg cannot be stopped inside (a bounded filter
/// drawn 100,000 times, minutes in one tile), asked of a running
/// `darkroom serve` with a 3-second limit, two at once, as images and
/// through `/info`: each ends in its drawing child, at the limit or within
/// it, the server's own memory never holds the drawing, other work is
/// answered meanwhile, and no child is left once the answers are given.
/// The shapes the sanitiser bounds before drawing (a filter of two billion
/// octaves, an embedded image that decodes to 400 MB) are drawn at once.
@Suite(.serialized) struct HostileSVGTests {
    static let limitSeconds = 3
    static let budgetMiB = 256

    /// The processes `pid` has started that still run.
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task -> [Int32] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// Whether `pid` runs: a process that has ended but not been reaped
    /// (a zombie, its parent gone) does not.
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(close, offsetBy: 2)] != "Z"
    }

    @Test func drawingsThatCannotBeStoppedInsideEndInTheirChild() async throws {
        let shapes = try await HostileShapes.folder()
        let folder = try Fixtures.temporaryFolder("darkroom-hostile-svg")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: shapes)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path, "--allow-private-networks",
                                                         "--max-processing-seconds", "\(Self.limitSeconds)",
                                                         "--max-request-memory-mb", "\(Self.budgetMiB)", "--memory-cache-mb", "16"],
                                                        log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown(); await server.stop() }) { () async throws in
                @Sendable func get(_ path: String) async throws -> (status: UInt, text: String, seconds: Double) {
                    let started = ContinuousClock.now
                    let response = try await client.execute(HTTPClientRequest(url: server.base + path), timeout: .seconds(600))
                    let body = try await response.body.collect(upTo: 20 << 20)
                    let took = ContinuousClock.now - started
                    return (response.status.code, String(decoding: Data(buffer: body).prefix(300), as: UTF8.self),
                            Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18)
                }
                let pid = server.process.processIdentifier
                // Warm: libvips started.
                _ = try await get("/img/_/rs:fit:64:64/plain/\(plainSource(origin.url("/one-pixel.png")))@png")
                try #require(ProcessMemory.resetPeak(of: pid), "the peak resident size cannot be reset here")
                let before = try #require(ProcessMemory.peakAndCurrent(of: pid)).current

                let filters = plainSource(origin.url("/filter-bomb.svg"))
                async let first = get("/img/_/rs:fit:200:200/plain/\(filters)@png")
                async let second = get("/img/_/rs:fit:300:300/plain/\(filters)@png")
                async let info = get("/info/_/plain/\(filters)")
                // Other work goes on while both drawings run.
                async let other = get("/img/_/rs:fit:64:64:0:1/plain/\(plainSource(origin.url("/one-pixel.png")))@jpg")
                let stopped = try await [first, second, info]
                let ordinary = try await other
                #expect(ordinary.status == 200, "\(ordinary)")
                for answer in stopped {
                    // The deadline (503), or the child's own CPU limit of the
                    // same seconds (422), whichever the kernel sees first.
                    #expect([422, 503].contains(answer.status) && answer.text.contains("limit"), "\(answer)")
                    // At the limit on an idle machine; the bound is far above
                    // it, where the drawing once went on for days.
                    #expect(answer.seconds < Double(Self.limitSeconds + 60), "\(answer)")
                }
                // Bounded before drawing: two billion octaves cut to ten, the
                // 10000 x 10000 image dropped; drawn well within the limit.
                for name in ["turbulence.svg", "embedded-bomb.svg"] {
                    let source = plainSource(origin.url("/\(name)"))
                    for path in ["/img/_/rs:fit:200:200/plain/\(source)@png", "/info/_/plain/\(source)"] {
                        let answer = try await get(path)
                        #expect(answer.status == 200, "\(path): \(answer)")
                    }
                }
                let peak = try #require(ProcessMemory.peakAndCurrent(of: pid)).peak
                #expect(!Variants.measuresMemory || peak - before <= Self.budgetMiB << 20, "the server's resident memory rose \((peak - before) >> 20) MiB")
                // Nothing left drawing.
                #expect(await eventually(60) { Self.children(of: pid).isEmpty }, "children left: \(Self.children(of: pid))")
                #expect(server.process.isRunning)
            }
        }
    }

    /// SIGTERM stops a server within its shutdown timeout while a drawing
    /// runs that would go on for a minute, and takes the drawing child with
    /// it; so does SIGKILL, which gives the server no say.
    @Test(arguments: [SIGTERM, SIGKILL])
    func aServerThatStopsTakesItsDrawingChildren(signal: Int32) async throws {
        let shapes = try await HostileShapes.folder()
        let folder = try Fixtures.temporaryFolder("darkroom-hostile-svg-stop")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: shapes)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path, "--allow-private-networks",
                                                         "--max-processing-seconds", "60", "--shutdown-timeout", "2"],
                                                        log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown(); await server.stop(signal: SIGKILL) }) { () async throws in
                let pid = server.process.processIdentifier
                let url = server.base + "/img/_/rs:fit:200:200/plain/\(plainSource(origin.url("/filter-bomb.svg")))@png"
                let request = Task { try? await client.execute(HTTPClientRequest(url: url), timeout: .seconds(120)) }
                defer { request.cancel() }
                try #require(await eventually(60) { !Self.children(of: pid).isEmpty }, "the drawing child started")
                let drawing = Self.children(of: pid)
                let started = ContinuousClock.now
                kill(pid, signal)
                #expect(await eventually(60) { !server.process.isRunning }, "the server stopped")
                if signal == SIGTERM {
                    // The shutdown timeout and a margin for a busy machine,
                    // far below the drawing's minute.
                    #expect(ContinuousClock.now - started < .seconds(30), "stopped after \(ContinuousClock.now - started)")
                }
                #expect(await eventually(30) { !drawing.contains(where: Self.isRunning) }, "drawing children \(drawing) outlived the server")
            }
        }
    }
}
