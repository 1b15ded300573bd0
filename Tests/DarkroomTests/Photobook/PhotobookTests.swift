@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite struct PhotobookTests {
    func pipeline() throws -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        return try ImagePipeline(configuration: configuration)
    }

    func corpusRequest(_ photos: [URL] = Corpus.photos) -> PhotobookRequest {
        PhotobookRequest(photos: photos.map { .init(name: $0.deletingPathExtension().lastPathComponent, source: .file($0.path)) })
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

    @Test func cancellingHalfwayStopsPromptlyAndLeavesNoFile() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book-cancel")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("book.pdf").path
        let pipeline = try pipeline()
        let job = Photobook(pipeline: pipeline).start(corpusRequest(Corpus.photos + Corpus.photos + Corpus.photos), to: path)
        let clock = ContinuousClock(), start = clock.now
        for await step in job.progress {
            if case .writing(let written, _) = step, written >= 3 { job.cancel(); break }
        }
        await #expect(throws: DarkroomError.self) { try await job.result }
        #expect(clock.now - start < .seconds(60))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty, "no output file, no temporary file")
        #expect(await eventually { pipeline.filtrationQueue.counts.running == 0 && pipeline.filtrationQueue.counts.waiting == 0 })
        #expect(pipeline.filtrationQueue.counts.finished < 36, "work stopped")
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
