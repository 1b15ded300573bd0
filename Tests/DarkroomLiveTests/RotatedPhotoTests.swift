import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// A phone's portrait photo carries an EXIF orientation, and libvips'
/// sequential decoding cannot serve rotation's out-of-order reads at large
/// sizes. Every orientation, at sizes below, near and above the source's,
/// through each front end as a user runs it: `darkroom process`, `darkroom
/// book` and `darkroom serve`, each a process of its own whose terminal
/// output is read too (libvips' warnings go to the log, never there).
@Suite(.offCooperativePool) struct RotatedPhotoTests {
    /// Wood.jpg (2560 x 1920) stored with each orientation, as o1.jpg ... o8.jpg.
    static func photos() throws -> URL {
        let folder = try Fixtures.temporaryFolder("darkroom-rotated")
        let wood = try Corpus.data("Wood.jpg")
        for orientation in 1...8 {
            try EXIFOrientation.jpeg(wood, orientation: orientation).write(to: folder.appendingPathComponent("o\(orientation).jpg"))
        }
        return folder
    }

    /// The upright size of Wood.jpg stored with `orientation`.
    static func upright(_ orientation: Int) -> (width: Int, height: Int) {
        orientation >= 5 ? (1920, 2560) : (2560, 1920)
    }

    /// The size a fit into `side` x `side` gives, never enlarged.
    static func fitted(_ orientation: Int, into side: Int) -> (width: Int, height: Int) {
        let (w, h) = upright(orientation)
        let scale = min(1, Double(side) / Double(max(w, h)))
        return (Int((Double(w) * scale).rounded()), Int((Double(h) * scale).rounded()))
    }

    /// A JPEG's size, from its header: a full decode of each answer would
    /// hold a thread of the tests' cooperative pool for seconds.
    static func size(of jpeg: Data) -> (width: Int, height: Int) {
        let markers = JPEGMarkers(jpeg)
        return (markers.width ?? 0, markers.height ?? 0)
    }

    static func size(of file: URL) throws -> (width: Int, height: Int) {
        size(of: try Data(contentsOf: file))
    }

    /// What libvips would print on its own about tiles and reads.
    static func libvipsNoise(_ text: String) -> Bool {
        ["VIPS-WARNING", "error in tile", "out of order read", "VipsJpeg"].contains { text.contains($0) }
    }

    @Test func process() async throws {
        let folder = try Self.photos()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = (1...8).map { folder.appendingPathComponent("o\($0).jpg").path }
        for side in [1600, 2500, 3000] {
            let out = folder.appendingPathComponent("fit-\(side)")
            let run = try await DarkroomProcess.run(["process"] + inputs + ["--resize", "\(side)", "-o", out.path])
            #expect(run.status == 0, "fit \(side): \(run.stderr)")
            #expect(!Self.libvipsNoise(run.stderr), "fit \(side): \(run.stderr)")
            for orientation in 1...8 {
                let size = try Self.size(of: out.appendingPathComponent("o\(orientation).jpg"))
                #expect(size == Self.fitted(orientation, into: side), "orientation \(orientation), fit \(side)")
            }
        }
        let out = folder.appendingPathComponent("fill")
        let run = try await DarkroomProcess.run(["process"] + inputs + ["--resize", "1000x1600", "--fit", "fill", "-o", out.path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!Self.libvipsNoise(run.stderr), "\(run.stderr)")
        for orientation in 1...8 {
            #expect(try Self.size(of: out.appendingPathComponent("o\(orientation).jpg")) == (1000, 1600), "orientation \(orientation), fill")
        }
    }

    /// The corner photo stored in each orientation (see ``CornerPhoto``).
    static func cornerPhotos() throws -> URL {
        let folder = try Fixtures.temporaryFolder("darkroom-corners")
        for orientation in 1...8 {
            try CornerPhoto.jpeg(orientation: orientation).write(to: folder.appendingPathComponent("c\(orientation).jpg"))
        }
        return folder
    }

    /// All eight orientations told apart by their pixels: each corner's
    /// colour where the upright picture has it, through `process`.
    @Test func processTurnsEveryOrientationUpright() async throws {
        let folder = try Self.cornerPhotos()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = (1...8).map { folder.appendingPathComponent("c\($0).jpg").path }
        for (resize, fit) in [("120", "fit"), ("200x100", "fill"), ("480", "fit")] {
            let out = folder.appendingPathComponent("out-\(resize)-\(fit)")
            let run = try await DarkroomProcess.run(["process"] + inputs + ["--resize", resize, "--fit", fit, "--format", "png", "-o", out.path])
            #expect(run.status == 0, "\(run.stderr)")
            for orientation in 1...8 {
                let answer = try Data(contentsOf: out.appendingPathComponent("c\(orientation).png"))
                #expect(CornerPhoto.problem(in: answer) == nil, "orientation \(orientation), \(resize) \(fit): \(CornerPhoto.problem(in: answer) ?? "")")
            }
        }
    }

    /// And through `book`: each page, rendered by poppler, shows the
    /// picture upright.
    @Test func bookTurnsEveryOrientationUpright() async throws {
        let folder = try Self.cornerPhotos()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = folder.appendingPathComponent("book.pdf")
        let run = try await DarkroomProcess.run(["book"] + (1...8).map { folder.appendingPathComponent("c\($0).jpg").path }
                                                + ["-o", pdf.path, "--page", "240x160", "--dpi", "72", "--margin", "0", "--fit", "fill"])
        #expect(run.status == 0, "\(run.stderr)")
        let pages = try await PDFPages.render(pdf, dpi: 72)
        #expect(pages.count == 8)
        for (index, page) in pages.enumerated() {
            #expect(CornerPhoto.problem(in: page) == nil, "page \(index + 1): \(CornerPhoto.problem(in: page) ?? "")")
        }
    }

    @Test func book() async throws {
        let folder = try Self.photos()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = folder.appendingPathComponent("book.pdf")
        // A4 at 300 DPI: 2480 x 3508 pages, near and above the photo's size.
        let run = try await DarkroomProcess.run(["book"] + (1...8).map { folder.appendingPathComponent("o\($0).jpg").path }
                                                + ["-o", pdf.path, "--dpi", "300"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!Self.libvipsNoise(run.stderr), "\(run.stderr)")
        let info = try await runTool("/usr/bin/pdfinfo", [pdf.path])
        #expect(info.output.contains("Pages:           8"), "\(info.output)")
    }

    @Test func server() async throws {
        let folder = try Self.photos()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: folder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let log = folder.appendingPathComponent("serve.log")
            let served = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path,
                                                         "--allow-private-networks"], log: log)
            let port = served.port
            try await cleaningUp({ await served.stop() }) { () async throws in
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                    let server = StartingServer(client: client, port: port)
                    func get(_ path: String) async throws -> (status: UInt, body: Data) { try await server.get(path) }
                    for orientation in 1...8 {
                        let source = origin.url("/o\(orientation).jpg").absoluteString
                        for (options, expected) in [("rs:fit:1600:1600", Self.fitted(orientation, into: 1600)),
                                                    ("rs:fit:2500:2500", Self.fitted(orientation, into: 2500)),
                                                    ("rs:fit:3000:3000", Self.fitted(orientation, into: 3000)),
                                                    ("rs:fill:1000:1600", (width: 1000, height: 1600))] {
                            let answer = try await get("/img/_/\(options)/plain/\(source)@jpg")
                            #expect(answer.status == 200, "orientation \(orientation), \(options): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                            if answer.status == 200 {
                                #expect(Self.size(of: answer.body) == expected, "orientation \(orientation), \(options)")
                            }
                        }
                    }
                    // All eight told apart by their pixels, on either engine's side of
                    // the thumbnail path (a JPEG answer; a PNG one).
                    let corners = try Self.cornerPhotos()
                    defer { try? FileManager.default.removeItem(at: corners) }
                    let cornerOrigin = try await OriginServer.start(serving: corners)
                    try await cleaningUp({ await cornerOrigin.stop() }) { () async throws in
                        for orientation in 1...8 {
                            for options in ["rs:fit:120:120", "rs:fill:200:100", "rs:fit:120:120/f:png"] {
                                let answer = try await get("/img/_/\(options)/plain/\(cornerOrigin.url("/c\(orientation).jpg").absoluteString)")
                                #expect(answer.status == 200 && CornerPhoto.problem(in: answer.body) == nil,
                                        "orientation \(orientation), \(options): \(answer.status) \(CornerPhoto.problem(in: answer.body) ?? "")")
                            }
                        }
                        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                        #expect(!Self.libvipsNoise(output), "\(output.suffix(2000))")
                    }
                }
            }
        }
    }
}
