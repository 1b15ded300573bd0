import AsyncHTTPClient
import Foundation
import Synchronization
import Testing
import TestSupport

/// Every geometry option family, on every source format, at every size,
/// with and without a resize first, asked of a server with default flags
/// (PDF and video turned on): each answer a 200 whose size is the one the
/// options make, or a 4xx that names the option. The sizes come from
/// imgproxy's order of steps (crop, resize, rotate and flip, padding), by
/// arithmetic independent of the product's. It would have caught a
/// rotation refused on a full-size photo (the source read in one pass,
/// asked for its rows out of order) and an SVG refused without a flag.
///
/// `make test` runs the short slice (the 2560 x 1600 photo in every
/// format); `make matrix` every size, up to one near the pixel limit
/// (DARKROOM_MATRIX=full).
@Suite(.serialized) struct CorrectnessMatrixTests {
    static var full: Bool { ProcessInfo.processInfo.environment["DARKROOM_MATRIX"] == "full" }

    /// The pixel limit the server runs with: the largest source is near it.
    static let pixelLimit = 12_000_000

    enum Family: CaseIterable, Sendable {
        case plain, rotate90, rotate180, rotate270, flipVertical, flipBoth, cropBottom, cropRight, padding

        var options: String {
            switch self {
            case .plain: ""
            case .rotate90: "rot:90"
            case .rotate180: "rot:180"
            case .rotate270: "rot:270"
            case .flipVertical: "fl:0:1"
            case .flipBoth: "fl:1:1"
            case .cropBottom: "c:1000:800:so"
            case .cropRight: "c:900:700:ea"
            case .padding: "pd:10:20"
            }
        }

        /// The answer's size for a `width` x `height` source, resized to
        /// fit `box` first where one is given: imgproxy crops, then
        /// resizes, then turns, then pads.
        func size(width: Int, height: Int, box: Int?) -> (width: Int, height: Int) {
            var (w, h) = (width, height)
            switch self {
            case .cropBottom: (w, h) = (min(1000, w), min(800, h))
            case .cropRight: (w, h) = (min(900, w), min(700, h))
            default: break
            }
            if let box {
                let scale = min(1, Double(box) / Double(w), Double(box) / Double(h))
                (w, h) = (max(1, Int((Double(w) * scale).rounded())), max(1, Int((Double(h) * scale).rounded())))
            }
            switch self {
            case .rotate90, .rotate270: (w, h) = (h, w)
            case .padding: (w, h) = (w + 40, h + 20)
            default: break
            }
            return (w, h)
        }
    }

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
                                                         "--max-source-pixels", "\(Self.pixelLimit)", "--pdf", "--video-thumbnails"],
                                                        log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown(); await server.stop() }) { () async throws in
                var cells: [(source: Source, family: Family, box: Int?)] = []
                for source in sources {
                    for family in Family.allCases {
                        for box in [nil, 300] as [Int?] { cells.append((source, family, box)) }
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
                            let steps = [cell.box.map { "rs:fit:\($0):\($0)" }, cell.family.options.isEmpty ? nil : cell.family.options, "f:jpg"].compactMap { $0 }
                            let path = "/img/_/\(steps.joined(separator: "/"))/plain/\(plainSource(origin.url("/\(cell.source.file)")))"
                            let response = try await client.execute(HTTPClientRequest(url: server.base + path), timeout: .seconds(600))
                            let body = Data(buffer: try await response.body.collect(upTo: 64 << 20))
                            let name = "\(cell.source.file) \(steps.joined(separator: "/"))"
                            guard response.status == .ok else {
                                failures.add("\(name): \(response.status.code) \(String(decoding: body.prefix(300), as: UTF8.self))")
                                return
                            }
                            let expected = cell.family.size(width: cell.source.width, height: cell.source.height, box: cell.box)
                            guard let got = try? ImageSize.of(body) else {
                                failures.add("\(name): an answer that does not decode")
                                return
                            }
                            // One pixel either way: rounding a scale is the engines' to choose.
                            if abs(got.width - expected.width) > 1 || abs(got.height - expected.height) > 1 {
                                failures.add("\(name): \(got.width) x \(got.height), not \(expected.width) x \(expected.height)")
                            }
                        }
                    }
                    add()
                    add()
                    while try await group.next() != nil { add() }
                }
                let took = ContinuousClock.now - started
                print("matrix: \(cells.count) cells (\(sources.count) sources x \(Family.allCases.count) families x with and without a resize) in \(took)")
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
