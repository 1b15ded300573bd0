@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct PhotobookTests {
    func pipeline() throws -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        return try ImagePipeline(configuration: configuration)
    }

    func corpusRequest(_ photos: [URL] = Corpus.photos) -> PhotobookRequest {
        var request = PhotobookRequest(photos: photos.map { .init(name: $0.deletingPathExtension().lastPathComponent, source: .file($0.path)) })
        request.limits = .unhurried
        return request
    }

    @Test func aBookOfCorpusPhotos() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("book.pdf").path
        let result = try await Photobook(pipeline: try pipeline()).make(corpusRequest(), to: path)
        #expect(result.pages == 12 && result.skipped.isEmpty)

        let info = try await runTool("/usr/bin/pdfinfo", [path]).output
        #expect(info.contains("Pages:           12"))
        #expect(info.contains("595.2 x 841.92 pts (A4)"))

        // Every image is DCT (JPEG) at the page's pixel size: 1240 x 1754 at 150 DPI.
        let list = try await runTool("/usr/bin/pdfimages", ["-list", path]).output.split(separator: "\n").dropFirst(2)
        #expect(list.count == 12)
        for line in list {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(columns[3] == "1240" && columns[4] == "1754", "\(line)")
            #expect(columns[8] == "jpeg", "\(line)")
        }

        // In the order given: the embedded JPEGs are the pages' own bytes.
        let extracted = folder.appendingPathComponent("img")
        _ = try await runTool("/usr/bin/pdfimages", ["-j", path, extracted.path])
        let sizes = try (0..<12).map { i in
            try FileManager.default.attributesOfItem(atPath: extracted.path + String(format: "-%03d.jpg", i))[.size] as! Int
        }
        #expect(sizes == result.pageJPEGBytes)

        // The PDF is at most 2% over the sum of its pages' JPEG bytes.
        let jpegTotal = result.pageJPEGBytes.reduce(0, +)
        #expect(Double(result.bytes) <= Double(jpegTotal) * 1.02, "\(result.bytes) vs \(jpegTotal)")

        // Pages render.
        let render = try await runTool("/usr/bin/pdftoppm", ["-r", "20", "-f", "12", "-l", "12", "-png", path, folder.appendingPathComponent("page").path])
        #expect(render.status == 0)
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("page-12.png").path))
    }

    /// A book's pages are asked of the pipeline like any request: a photo
    /// given twice is filtered once (coalesced, or a memory hit).
    @Test func pagesGoThroughThePipeline() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book")
        defer { try? FileManager.default.removeItem(at: folder) }
        let pipeline = try pipeline()
        let photo = Corpus.photo("Aqua.jpg")
        let result = try await Photobook(pipeline: pipeline).make(corpusRequest([photo, photo]), to: folder.appendingPathComponent("book.pdf").path)
        #expect(result.pages == 2 && result.pageJPEGBytes[0] == result.pageJPEGBytes[1])
        let status = pipeline.status
        #expect(status.processing.finished == 1, "\(status.processing)")
        await pipeline.shutdown()
    }

    @Test func fitMarginsCaptionsAndAFilter() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book")
        defer { try? FileManager.default.removeItem(at: folder) }
        var request = corpusRequest(Array(Corpus.photos.prefix(3)))
        request.page = .letter
        request.fit = .fit
        request.margin = 12
        request.captions = true
        request.filter = .sepia(intensity: 0.8)
        let path = folder.appendingPathComponent("book.pdf").path
        let result = try await Photobook(pipeline: try pipeline()).make(request, to: path)
        #expect(result.pages == 3)
        #expect(try await runTool("/usr/bin/pdfinfo", [path]).output.contains("612 x 792 pts (letter)"))
        let text = try await runTool("/usr/bin/pdftotext", [path, "-"]).output
        #expect(text.contains("Aqua") && text.contains("Blinds"))
    }

    /// What a reader sees, from the pages poppler renders: each page is its
    /// photo, in the order given (each page nearest its own photo of all);
    /// the margin is white and as wide as asked, and the photo fills the
    /// box inside it; a sepia book's pages are sepia (red over green over
    /// blue, where the plain book's are not).
    @Test func thePagesShowThePhotosInOrderWithTheirMarginAndFilter() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book-pixels")
        defer { try? FileManager.default.removeItem(at: folder) }
        // A different order from the corpus' own, so the check can fail.
        let photos = Array(Corpus.photos.prefix(6).reversed())
        try #require(photos.count == 6, "the corpus is missing: \(Corpus.photosFolder.path)")
        var request = corpusRequest(photos)
        request.page = .pixels(width: 300, height: 200)
        request.dpi = 72
        request.margin = 10.16      // 10.16 mm at 72 DPI: 28.8, so 29 pixels
        request.fit = .fill
        let plainPath = folder.appendingPathComponent("plain.pdf").path
        _ = try await Photobook(pipeline: try pipeline()).make(request, to: plainPath)
        request.filter = .sepia(intensity: 0.8)
        let sepiaPath = folder.appendingPathComponent("sepia.pdf").path
        _ = try await Photobook(pipeline: try pipeline()).make(request, to: sepiaPath)
        let plain = try await PDFPages.render(URL(fileURLWithPath: plainPath), dpi: 72)
        let sepia = try await PDFPages.render(URL(fileURLWithPath: sepiaPath), dpi: 72)
        #expect(plain.count == 6 && sepia.count == 6)

        let margin = 29, box = (width: 300 - 2 * margin, height: 200 - 2 * margin)
        // Each photo as the box shows it, made by the processor directly,
        // plain and with the book's filter.
        func references(_ operations: [ImageOperation]) async throws -> [RawPixels] {
            try await onOwnThread {
                try photos.map { photo in
                    let options = ProcessingOptions(
                        operations: [.resize(Resize(width: box.width, height: box.height, mode: .fill))] + operations,
                        output: OutputOptions(format: .png))
                    let made = try ImageProcessor.processBlocking(try Data(contentsOf: photo), options: options)
                    return try RawPixels.decode([UInt8](made.data), loader: .png)
                }
            }
        }
        let plainReferences = try await references([])
        let sepiaReferences = try await references([.sepia(intensity: 0.8)])
        func inside(_ page: RawPixels) -> RawPixels {
            var bytes: [UInt8] = []
            for y in margin..<(margin + box.height) { for x in margin..<(margin + box.width) { bytes += page.pixel(x: x, y: y).prefix(3) } }
            return RawPixels(width: box.width, height: box.height, bands: 3, bytes: bytes)
        }
        func distance(_ a: RawPixels, _ b: RawPixels) -> Double {
            var sum = 0.0
            for (x, y) in zip(a.bytes, b.bytes) {
                let difference = Double(Int(x) - Int(y))
                sum += difference * difference
            }
            return sum / Double(a.bytes.count)
        }
        for (index, page) in plain.enumerated() {
            #expect(page.width == 300 && page.height == 200, "page \(index + 1): \(page.width) x \(page.height)")
            let distances = plainReferences.map { distance(inside(page), $0) }
            let nearest = distances.firstIndex(of: distances.min()!)!
            #expect(nearest == index, "page \(index + 1) looks most like photo \(nearest + 1): \(distances)")
            // White margins, as wide as asked, on every side.
            for (x, y) in [(2, 100), (margin - 2, 100), (297, 100), (300 - margin + 1, 100), (150, 2), (150, margin - 2), (150, 197), (150, 200 - margin + 1)] {
                #expect(page.pixel(x: x, y: y).prefix(3).allSatisfy { $0 >= 250 }, "page \(index + 1) at (\(x), \(y)): \(page.pixel(x: x, y: y))")
            }
            // The photo starts where the margin ends: no white band inside.
            let innerEdge = (0..<box.height).map { inside(page).pixel(x: 1, y: $0) }.filter { $0.allSatisfy { $0 >= 250 } }.count
            #expect(innerEdge < box.height / 2, "page \(index + 1): the photo's left edge is white in \(innerEdge) of \(box.height) rows")
        }
        // A sepia page is its photo in sepia: nearer the filtered photo than
        // the plain one, and nearest its own photo of all the filtered ones.
        for (index, page) in sepia.enumerated() {
            let toSepia = sepiaReferences.map { distance(inside(page), $0) }
            let toPlain = distance(inside(page), plainReferences[index])
            #expect(toSepia.firstIndex(of: toSepia.min()!) == index, "sepia page \(index + 1): \(toSepia)")
            #expect(toSepia[index] * 4 < toPlain, "sepia page \(index + 1): \(toSepia[index]) from the sepia photo, \(toPlain) from the plain one")
        }
    }

    @Test func cancellingHalfwayStopsTheRestOfTheWorkAndLeavesNoFile() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book-cancel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("book.pdf").path
        // The corpus from files, then twice more from an origin that holds
        // its answers: the book cannot be done before the test cancels it,
        // however slowly the test's task is scheduled.
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            var configuration = ImagePipeline.Configuration()
            configuration.diskCache = nil
            configuration.loader.readTimeout = .seconds(600)
            configuration.loader.totalTimeout = .seconds(600)
            configuration.loader.retries = 0
            let pipeline = try ImagePipeline(configuration: configuration)
            var request = corpusRequest(Corpus.photos)
            for copy in 1...2 {
                for photo in Corpus.photos {
                    let path = "/photos/\(photo.lastPathComponent)?copy=\(copy)"
                    origin.set(.delay(.seconds(600)), for: "/photos/\(photo.lastPathComponent)")
                    request.photos.append(.init(name: "\(copy)-\(photo.lastPathComponent)", source: .url(origin.url(path))))
                }
            }
            let job = Photobook(pipeline: pipeline).start(request, to: path)
            let held = Corpus.photos.map { "/photos/\($0.lastPathComponent)" }
            for await step in job.progress {
                if case .writing(let written, _) = step, written >= 3 { break }
            }
            // Cancelled once pages are written and a held download is under
            // way (the book cannot end without one).
            #expect(await eventually(120) { held.contains { origin.requests($0) > 0 } }, "the book reached the held photos")
            job.cancel()
            await #expect(throws: DarkroomError.self) { try await job.result }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "no output file, no temporary file")
            #expect(await eventually { pipeline.filtrationQueue.counts.running == 0 && pipeline.filtrationQueue.counts.waiting == 0 })
            // The held downloads were abandoned, not waited for: none runs or
            // waits any more (each would hold its slot for 600 s), and the
            // origin saw every one it had begun to answer cut off.
            let downloads = pipeline.downloadQueue
            #expect(await eventually(120) { downloads.counts.running == 0 && downloads.counts.waiting == 0 },
                    "downloads running \(downloads.counts.running), waiting \(downloads.counts.waiting)")
            #expect(await eventually(120) { held.allSatisfy { origin.aborted($0) == origin.requests($0) } },
                    "each held download was cut off: \(held.map { "\(origin.requests($0))/\(origin.aborted($0))" })")
        }
    }

    @Test func aFailingPhotoIsSkippedOrFailsTheBook() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book-fail")
        defer { try? FileManager.default.removeItem(at: folder) }
        var request = corpusRequest(Array(Corpus.photos.prefix(2)))
        request.photos.insert(.init(name: "Not a photo", source: .file(Fixtures.url("page.html").path)), at: 1)
        request.skipFailed = true
        let path = folder.appendingPathComponent("book.pdf").path
        let result = try await Photobook(pipeline: try pipeline()).make(request, to: path)
        #expect(result.pages == 2)
        #expect(result.skipped.map(\.name) == ["Not a photo"])
        #expect(result.skipped.first?.reason.contains("HTML") == true)

        request.skipFailed = false
        let strict = folder.appendingPathComponent("strict.pdf").path
        do {
            _ = try await Photobook(pipeline: try pipeline()).make(request, to: strict)
            Issue.record("the book did not fail")
        } catch {
            #expect((error as? DarkroomError)?.reason.contains("Not a photo") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: strict))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["book.pdf"])
    }
}
