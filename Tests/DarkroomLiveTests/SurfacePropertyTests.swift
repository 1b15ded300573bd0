import AsyncHTTPClient
import DarkroomImaging
import Foundation
import Synchronization
import Testing
import TestSupport

/// The whole URL surface against the sources that cost the most, asked of
/// a running `darkroom serve` with a 3-second limit and a 256 MiB budget:
/// random option families (``SurfaceProperty``) with every output format,
/// on noise at the pixel limit, a 1 x 1 PNG extended to the result limit,
/// every hostile shape, PDF pages and a video. Each answer is an image, a
/// 4xx or a 503, within the limit and a second; the server's and its
/// children's memory stay within the budget and a margin; a client that
/// leaves takes its work (and any child) with it; no child ever holds a
/// socket.
///
/// `make test` runs a fixed seed's short run; `make property` a long one
/// from a new seed (DARKROOM_PROPERTY_SEED and DARKROOM_PROPERTY_CASES).
@Suite(.serialized) struct SurfacePropertyTests {
    static let limitSeconds = 3
    static let budgetMiB = 256
    static let resultLimit = 4096
    static let pixelLimit = 4_000_000
    /// Past the budget (which holds each child whole, its resident base
    /// too): the server's memory cache, its connections' buffers and what
    /// malloc keeps.
    static let marginMiB = 128

    static var seed: UInt64 {
        ProcessInfo.processInfo.environment["DARKROOM_PROPERTY_SEED"].flatMap(UInt64.init) ?? 20_261_129
    }

    static var cases: Int {
        ProcessInfo.processInfo.environment["DARKROOM_PROPERTY_CASES"].flatMap(Int.init) ?? 48
    }

    /// How long past the limit an answer may come: the promise's second
    /// in the long run (`make property`, alone on the machine). The short
    /// run shares two cores with the whole suite in a debug build, where
    /// one call that cannot be stopped (a tile of the face search, an
    /// encoder at the size it runs in the server) takes several times its
    /// idle time; it allows four.
    static var overshoot: Duration {
        ProcessInfo.processInfo.environment["DARKROOM_PROPERTY_CASES"] == nil ? .seconds(4) : .seconds(1)
    }

    /// The sources, made into a folder the origin serves.
    static func sources() async throws -> (folder: URL, names: [String]) {
        let shapes = try await HostileShapes.folder()
        let folder = try Fixtures.temporaryFolder("darkroom-property-sources")
        var names: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: shapes.path).sorted() {
            try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent(name), withDestinationURL: shapes.appendingPathComponent(name))
            names.append(name)
        }
        // Noise at the pixel limit: nothing compresses it, every encoder
        // meets its worst picture.
        var g = SurfaceProperty.Generator(state: 7)
        let side = Int(Double(pixelLimit).squareRoot())
        let noise = RawPixels(width: side, height: side, bands: 3, bytes: (0..<side * side * 3).map { _ in UInt8(truncatingIfNeeded: g.next()) })
        try Data(noise.encoded(.jpeg(quality: 95, progressive: false))).write(to: folder.appendingPathComponent("noise.jpg"))
        try Data(noise.encoded(.png)).write(to: folder.appendingPathComponent("noise.png"))
        try TestPDF.document([.filled(1, 0, 0), .filled(0, 0, 1, width: 3000, height: 3000)]).write(to: folder.appendingPathComponent("pages.pdf"))
        try TestPDF.formBomb(depth: 9, fanout: 10).write(to: folder.appendingPathComponent("form-bomb.pdf"))
        try TestVideo.threeColours().write(to: folder.appendingPathComponent("clip.mp4"))
        let photo = try #require(Corpus.photos.first, "the corpus is missing: \(Corpus.photosFolder.path)")
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("photo.jpg"), withDestinationURL: photo)
        names += ["noise.jpg", "noise.png", "pages.pdf", "form-bomb.pdf", "clip.mp4", "photo.jpg"]
        return (folder, names)
    }

    @Test(.enabled(if: Variants.sanitizer == nil, "its bounds are of time and memory, which a sanitizer's build does not keep"))
    func everyOptionOnTheWorstSourcesEndsWithinItsBounds() async throws {
        let (sourceFolder, names) = try await Self.sources()
        defer { try? FileManager.default.removeItem(at: sourceFolder) }
        let folder = try Fixtures.temporaryFolder("darkroom-property")
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: sourceFolder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(
                ["serve", "--cache-dir", folder.appendingPathComponent("cache").path, "--allow-private-networks",
                 "--max-processing-seconds", "\(Self.limitSeconds)", "--max-request-memory-mb", "\(Self.budgetMiB)",
                 "--max-source-pixels", "\(Self.pixelLimit)", "--max-result-dimension", "\(Self.resultLimit)",
                 "--memory-cache-mb", "16", "--pdf", "--video-thumbnails", "--client-hints",
                 "--watermark", sourceFolder.appendingPathComponent("photo.jpg").path],
                log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            let sampler = ChildSampler(server: server.process.processIdentifier)
            try await cleaningUp({ sampler.stop(); try? await client.shutdown(); await server.stop() }) { () async throws in
                let pid = server.process.processIdentifier
                let warm = try await client.execute(HTTPClientRequest(url: server.base + "/img/_/rs:fit:64:64/plain/\(plainSource(origin.url("/photo.jpg")))"),
                                                    timeout: .seconds(120))
                _ = try await warm.body.collect(upTo: 1 << 20)
                try #require(ProcessMemory.resetPeak(of: pid), "the peak resident size cannot be reset here")
                let before = try #require(ProcessMemory.peakAndCurrent(of: pid)).current
                sampler.start()

                let property = SurfaceProperty(resultLimit: Self.resultLimit)
                var g = SurfaceProperty.Generator(state: Self.seed)
                var failures: [String] = []
                var statuses: [Int: Int] = [:]
                // Every case with its answer and time, printed when one
                // fails: what ran before a slow answer is often its cause.
                var log: [String] = []
                for number in 0..<Self.cases {
                    let source = g.pick(names)
                    let options = property.options(&g)
                    let route = g.chance(10) ? "/info/_/do:1/" : "/img/_/\(options)/"
                    let path = route + "plain/\(plainSource(origin.url("/\(source)")))"
                    // Client hints reach the same steps by another path:
                    // a width and a pixel ratio where the URL sets none.
                    let hints = g.chance(25) ? property.clientHints(&g) : []
                    let name = "case \(number) of seed \(Self.seed): \(route)\(source)\(hints.isEmpty ? "" : " with \(hints)")"
                    let leaves = number % 8 == 7
                    let started = ContinuousClock.now
                    let waitsBefore = CPUTime.waits(of: server.process.processIdentifier)
                    do {
                        var request = HTTPClientRequest(url: server.base + path)
                        for (field, value) in hints { request.headers.add(name: field, value: value) }
                        let response = try await client.execute(request,
                                                                timeout: leaves ? .milliseconds(300) : .seconds(120))
                        let body = try await response.body.collect(upTo: 64 << 20)
                        let took = ContinuousClock.now - started
                        // A server kept from the cores by the rest of the
                        // suite is late without being at fault: the longest
                        // any of its threads waited for a core is not counted.
                        let waited = CPUTime.longestWait(of: server.process.processIdentifier, since: waitsBefore)
                        let status = Int(response.status.code)
                        statuses[status, default: 0] += 1
                        log.append("\(number): \(status) in \(took.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))), waited \(waited.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))) \(path.prefix(160))\(hints.isEmpty ? "" : " \(hints)")")
                        if !((200..<300).contains(status) || (400..<500).contains(status) || status == 503) {
                            failures.append("\(name): \(status) \(String(buffer: body).prefix(200))")
                        }
                        if took - waited > .seconds(Self.limitSeconds) + Self.overshoot {
                            failures.append("\(name): answered \(status) after \(took), of which it waited \(waited) for a core")
                        }
                    } catch where leaves {
                        statuses[0, default: 0] += 1
                        log.append("\(number): left \(path.prefix(160))")
                        // The client left: its work stops, and any child with it.
                        let settled = await eventuallyAsync(Double(Self.limitSeconds + 2)) {
                            guard HostileSVGTests.children(of: pid).isEmpty else { return false }
                            return await CPUTime.busyShare(of: pid, over: .milliseconds(250)) < 0.2
                        }
                        if !settled { failures.append("\(name): the server still worked \(Self.limitSeconds + 2) s after the client left") }
                    }
                }
                sampler.stop()
                let peak = try #require(ProcessMemory.peakAndCurrent(of: pid)).peak
                let children = sampler.peakChildrenBytes
                let rise = peak - before + children
                let seen = statuses.sorted { $0.key < $1.key }.map { "\($0.key == 0 ? "left" : "\($0.key)"): \($0.value)" }.joined(separator: ", ")
                print("property: seed \(Self.seed), \(Self.cases) cases (\(seen)): the server rose \((peak - before) >> 20) MiB, its children held at most \(children >> 20) MiB at once")
                #expect(!Variants.measuresMemory || rise <= (Self.budgetMiB + Self.marginMiB) << 20,
                        "the server rose \((peak - before) >> 20) MiB and its children held \(children >> 20) MiB, past the budget of \(Self.budgetMiB) MiB and \(Self.marginMiB) MiB")
                #expect(sampler.socketsSeen.isEmpty, "children held sockets: \(sampler.socketsSeen)")
                #expect(failures.isEmpty, "\(failures.count) of \(Self.cases) cases:\n\(failures.joined(separator: "\n"))\nevery case:\n\(log.joined(separator: "\n"))")
                #expect(server.process.isRunning)
            }
        }
    }
}

/// The server's CPU time, from /proc.
enum CPUTime {
    /// How long each of the process's threads has waited, ready, for a
    /// core (the scheduler's run-queue time, in nanoseconds), by thread.
    static func waits(of pid: Int32) -> [String: UInt64] {
        let tasks = "/proc/\(pid)/task"
        var waits: [String: UInt64] = [:]
        for thread in (try? FileManager.default.contentsOfDirectory(atPath: tasks)) ?? [] {
            guard let line = try? String(contentsOfFile: "\(tasks)/\(thread)/schedstat", encoding: .utf8) else { continue }
            let fields = line.split(separator: " ")
            if fields.count > 1, let waited = UInt64(fields[1]) { waits[thread] = waited }
        }
        return waits
    }

    /// The longest any thread of the process waited for a core since `before`.
    static func longestWait(of pid: Int32, since before: [String: UInt64]) -> Duration {
        let most = waits(of: pid).map { thread, waited in waited - min(waited, before[thread] ?? 0) }.max() ?? 0
        return .nanoseconds(Int64(most))
    }

    /// Clock ticks the process and its threads have run.
    static func ticks(of pid: Int32) -> Int? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
        // utime and stime: the 14th and 15th fields, the 12th and 13th after the name.
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// The share of one core the process used over `window`.
    static func busyShare(of pid: Int32, over window: Duration) async -> Double {
        guard let first = ticks(of: pid) else { return 0 }
        let started = ContinuousClock.now
        try? await Task.sleep(for: window)
        let took = ContinuousClock.now - started
        guard let second = ticks(of: pid) else { return 0 }
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        return Double(second - first) / Double(sysconf(Int32(_SC_CLK_TCK))) / seconds
    }
}

/// Looks at the server's children every 20 ms from a thread of its own:
/// the most resident memory they held at once, and any socket one held.
final class ChildSampler: Sendable {
    private struct State {
        var running = false
        var stopped = false
        var peakChildren = 0
        var sockets: [String] = []
    }
    private let state = Mutex(State())
    let server: Int32

    init(server: Int32) {
        self.server = server
    }

    var peakChildrenBytes: Int { state.withLock { $0.peakChildren } }
    var socketsSeen: [String] { state.withLock { $0.sockets } }

    func start() {
        let go = state.withLock { s -> Bool in
            guard !s.running, !s.stopped else { return false }
            s.running = true
            return true
        }
        guard go else { return }
        let thread = Thread { [self] in
            while !state.withLock({ $0.stopped }) {
                sample()
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        thread.start()
    }

    func stop() {
        state.withLock { $0.stopped = true }
    }

    private func sample() {
        var total = 0
        var sockets: [String] = []
        for child in HostileSVGTests.children(of: server) {
            // A child between its fork and its exec is still the server
            // (its memory and descriptors shared): only what it runs counts.
            let command = (try? String(contentsOfFile: "/proc/\(child)/cmdline", encoding: .utf8))?.split(separator: "\0").map(String.init) ?? []
            guard command.count > 1, command[1] != "serve" else { continue }
            total += ProcessMemory.peakAndCurrent(of: child)?.current ?? 0
            let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(child)/fd")) ?? []
            for fd in fds {
                if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child)/fd/\(fd)"), target.hasPrefix("socket:") {
                    sockets.append("\(child) (\(command.dropFirst().joined(separator: " ").prefix(80))): fd \(fd) \(target)")
                }
            }
        }
        state.withLock { s in
            s.peakChildren = max(s.peakChildren, total)
            s.sockets += sockets
        }
    }
}
