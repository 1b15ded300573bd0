import AsyncHTTPClient
import Foundation
import Synchronization
import Testing
import TestSupport

/// Every option family (CorrectnessMatrix+Families, typical and extreme
/// arguments), on every source format, at every size, with and without a
/// resize first, asked of a server with default flags (PDF and video
/// turned on): each answer a 200 whose size is the one the options make,
/// or a 4xx that names the option. The sizes come from imgproxy's order of
/// steps (crop, resize, rotate and flip, padding), by arithmetic
/// independent of the product's. It would have caught a rotation refused
/// on a full-size photo (the source read in one pass, asked for its rows
/// out of order), an SVG refused without a flag, and `rs:fit:W:0` bent by
/// the result limit.
///
/// `make test` runs the short slice (the geometry families on the 2560 x
/// 1600 photo in every format, and on 64 x 48 drawings); `make matrix` every family at every size,
/// up to one near the pixel limit (DARKROOM_MATRIX=full).
@Suite(.serialized) struct CorrectnessMatrixTests {
    static var full: Bool { ProcessInfo.processInfo.environment["DARKROOM_MATRIX"] == "full" }

    /// The pixel limit the server runs with: the largest source is near it.
    static let pixelLimit = 12_000_000

    struct Source: Sendable {
        var file: String
        var width: Int
        var height: Int
    }

    /// The photo in every format at every size, made by the `vips`
    /// command (nothing of the product's own code makes a source it is
    /// then asked to read).
    static func sources(in folder: URL) async throws -> [Source] {
        let photo = Corpus.photo("Garden.jpg").path
        var sizes = [(2560, 1600)]
        if full { sizes = [(64, 48)] + sizes + [(4000, 2990)] }
        var made: [Source] = []
        func vips(_ arguments: [String]) async throws {
            let run = try await runTool("/usr/bin/vips", arguments)
            guard run.status == 0 else { throw MatrixError("vips \(arguments.joined(separator: " ")): \(run.output)") }
        }
        for (width, height) in sizes {
            let base = folder.appendingPathComponent("base-\(width)x\(height).v").path
            try await vips(["resize", photo, base, "\(Double(width) / 2560)", "--vscale", "\(Double(height) / 1600)"])
            defer { try? FileManager.default.removeItem(atPath: base) }
            for suffix in ["jpg[Q=90]", "png", "webp[Q=80]", "avif[Q=60]", "heic[Q=60]", "gif", "tif"] {
                let name = "photo-\(width)x\(height).\(suffix.prefix { $0 != "[" })"
                try await vips(["copy", base, folder.appendingPathComponent(name).path + (suffix.contains("[") ? String(suffix.drop { $0 != "[" }) : "")])
                let header = try await runTool("/usr/bin/vipsheader", ["-f", "width", folder.appendingPathComponent(name).path])
                let tall = try await runTool("/usr/bin/vipsheader", ["-f", "height", folder.appendingPathComponent(name).path])
                // The number, past any warning libvips writes beside it.
                func number(_ text: String) -> Int? { text.split(whereSeparator: \.isNewline).compactMap { Int($0) }.first }
                guard let w = number(header.output), let h = number(tall.output) else { throw MatrixError("\(name): \(header.output)") }
                made.append(Source(file: name, width: w, height: h))
            }
        }
        // Drawings at every size, and small ones in the slice too: a
        // vector smaller than the box is drawn larger, whatever comes
        // before the resize.
        for (width, height) in full ? sizes : [(64, 48)] + sizes {
            let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(width)\" height=\"\(height)\"><rect width=\"\(width)\" height=\"\(height / 2)\" fill=\"#3060c0\"/><circle cx=\"\(width / 2)\" cy=\"\(height / 2)\" r=\"\(height / 3)\" fill=\"#e0a020\"/></svg>"
            try Data(svg.utf8).write(to: folder.appendingPathComponent("drawing-\(width)x\(height).svg"))
            made.append(Source(file: "drawing-\(width)x\(height).svg", width: width, height: height))
            try TestPDF.document([.filled(0.2, 0.4, 0.8, width: width, height: height)]).write(to: folder.appendingPathComponent("page-\(width)x\(height).pdf"))
            made.append(Source(file: "page-\(width)x\(height).pdf", width: width, height: height))
        }
        let video = try TestVideo.make(["-f", "lavfi", "-i", "testsrc=s=1280x720:r=10:d=2", "-c:v", "libx264", "-pix_fmt", "yuv420p"], fileExtension: "mp4")
        try video.write(to: folder.appendingPathComponent("clip-1280x720.mp4"))
        made.append(Source(file: "clip-1280x720.mp4", width: 1280, height: 720))
        return made
    }

    /// An answer's size: from its header, or for HEIF and AVIF (whose
    /// coded size may pass the picture's, cropped by a `clap` box) as
    /// libvips reads it.
    static func size(of body: Data, in folder: URL) async throws -> (width: Int, height: Int)? {
        guard body.count >= 12, Array(body[4..<8]) == Array("ftyp".utf8) else { return try? ImageSize.of(body) }
        let file = folder.appendingPathComponent("answer-\(UUID().uuidString).heif")
        try body.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        func number(_ field: String) async throws -> Int? {
            try await runTool("/usr/bin/vipsheader", ["-f", field, file.path]).output.split(whereSeparator: \.isNewline).compactMap { Int($0) }.first
        }
        guard let width = try await number("width"), let height = try await number("height") else { return nil }
        return (width, height)
    }

    struct MatrixError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test func everyFamilyOnEveryFormatAndSizeHasItsGeometry() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-matrix")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sourcesFolder = folder.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: sourcesFolder, withIntermediateDirectories: true)
        let sources = try await Self.sources(in: sourcesFolder)
        let origin = try await OriginServer.start(serving: sourcesFolder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path, "--allow-private-networks",
                                                         "--max-source-pixels", "\(Self.pixelLimit)", "--pdf", "--video-thumbnails",
                                                         // Room for every encoder at the pixel limit: the budget's
                                                         // refusals are tested apart.
                                                         "--max-request-memory-mb", "1024"],
                                                        log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown(); await server.stop() }) { () async throws in
                var cells: [(source: Source, family: Family, box: Int?)] = []
                let families = Self.families.filter { Self.full || $0.short }
                for source in sources {
                    for family in families {
                        for box in (family.ownsResize ? [nil] : [nil, 300]) as [Int?] { cells.append((source, family, box)) }
                    }
                }
                let allCells = cells
                let failures = Failures()
                let started = ContinuousClock.now
                // Two at a time, as many as there are cores here.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    var next = 0
                    func add() {
                        guard next < allCells.count else { return }
                        let cell = allCells[next]
                        next += 1
                        group.addTask {
                            let steps = ["f:jpg", cell.box.map { "rs:fit:\($0):\($0)" }, cell.family.options.isEmpty ? nil : cell.family.options].compactMap { $0 }
                            let path = "/img/_/\(steps.joined(separator: "/"))/plain/\(plainSource(origin.url("/\(cell.source.file)")))"
                            let response = try await client.execute(HTTPClientRequest(url: server.base + path), timeout: .seconds(600))
                            let body = Data(buffer: try await response.body.collect(upTo: 64 << 20))
                            let name = "\(cell.source.file) \(steps.joined(separator: "/"))"
                            let text = String(decoding: body.prefix(300), as: UTF8.self)
                            let vector = cell.source.file.hasSuffix(".svg") || cell.source.file.hasSuffix(".pdf")
                            let expected = cell.family.expected(cell.source.width, cell.source.height, cell.box, vector)
                            if case .withinLimit = expected, (400..<500).contains(Int(response.status.code)) {
                                if !text.contains("limit") { failures.add("\(name): \(response.status.code) \(text), not a 4xx naming the limit") }
                                return
                            }
                            if case .refused(let word) = expected {
                                if !(400..<500).contains(Int(response.status.code)) || !text.contains(word) {
                                    failures.add("\(name): \(response.status.code) \(text), not a 4xx naming '\(word)'")
                                }
                                return
                            }
                            guard response.status == .ok else {
                                failures.add("\(name): \(response.status.code) \(text)")
                                return
                            }
                            guard let got = try await Self.size(of: body, in: folder) else {
                                failures.add("\(name): an answer that does not decode")
                                return
                            }
                            if expected == .withinLimit, got.width > 8192 || got.height > 8192 {
                                failures.add("\(name): \(got.width) x \(got.height), over the result limit")
                            }
                            // One pixel either way: rounding a scale is the engines' to choose.
                            if case .size(let width, let height) = expected, abs(got.width - width) > 1 || abs(got.height - height) > 1 {
                                failures.add("\(name): \(got.width) x \(got.height), not \(width) x \(height)")
                            }
                        }
                    }
                    add()
                    add()
                    while try await group.next() != nil { add() }
                }
                let took = ContinuousClock.now - started
                print("matrix: \(cells.count) cells (\(sources.count) sources x \(families.count) families x with and without a resize) in \(took)")
                let found = failures.all
                #expect(found.isEmpty, "\(found.count) of \(cells.count) cells:\n\(found.sorted().joined(separator: "\n"))")
            }
        }
    }
}

/// The cells that failed, from the tasks that ask them.
final class Failures: Sendable {
    private let lines = Mutex<[String]>([])
    func add(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}
