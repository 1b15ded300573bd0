@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// PDF sources: refused unless turned on; then one page drawn by a child
/// process under its own memory and CPU limits, and the run's deadline.
@Suite(.offCooperativePool) struct PDFPageTests {
    let twoPages = TestPDF.document([.filled(1, 0, 0), .filled(0, 0, 1, width: 100, height: 200)])

    func options(_ operations: [ImageOperation] = [], page: Int = 0, configure: (inout ImageLimits) -> Void = { _ in }) -> ProcessingOptions {
        var options = ProcessingOptions(operations: operations, output: OutputOptions(format: .png))
        options.limits.pdfPages = PDFPages(command: [DarkroomProcess.binary.path, "render-pdf-page"])
        options.pages.first = page
        configure(&options.limits)
        return options.unhurried
    }

    @Test func refusedUnlessTurnedOn() {
        let refused = refusal(twoPages, ProcessingOptions(output: OutputOptions(format: .png)))
        #expect(refused?.kind == .notAnImage && refused?.reason.contains("--pdf") == true, "\(String(describing: refused))")
    }

    @Test func thePageAskedIsDrawnAtTheSizeAsked() throws {
        let first = try ImageProcessor.processBlocking(twoPages, options: options([.resize(Resize(width: 400, height: 400))]))
        #expect(first.format == .png && first.width == 400 && first.height == 200, "drawn to cover the box, then fitted")
        let red = try pixels(of: first)
        #expect(red.pixel(x: 200, y: 100) == [255, 0, 0])
        let second = try ImageProcessor.processBlocking(twoPages, options: options([.resize(Resize(width: 400, height: 400))], page: 1))
        #expect(second.width == 200 && second.height == 400)
        #expect(try pixels(of: second).pixel(x: 100, y: 200) == [0, 0, 255])
        // At 72 pixels an inch without a resize.
        let plain = try ImageProcessor.processBlocking(twoPages, options: options())
        #expect(plain.width == 200 && plain.height == 100)
    }

    @Test func aPagePastTheLastIsRefusedWithTheCount() {
        let refused = refusal(twoPages, options(page: 2))
        #expect(refused?.kind == .invalidOption && refused?.reason.contains("2 pages") == true, "\(String(describing: refused))")
    }

    @Test func severalPagesAreStackedTopToBottom() throws {
        let three = TestPDF.document([.filled(1, 0, 0), .filled(0, 0, 1), .filled(0, 1, 0)])
        var two = options()
        two.pages = PageSelection(first: 1, count: 2)
        let stacked = try pixels(of: try ImageProcessor.processBlocking(three, options: two))
        #expect(stacked.width == 200 && stacked.height == 200)
        #expect(stacked.pixel(x: 100, y: 50) == [0, 0, 255] && stacked.pixel(x: 100, y: 150) == [0, 255, 0])
        // As many as there are.
        two.pages = PageSelection(first: 2, count: 5)
        #expect(try ImageProcessor.processBlocking(three, options: two).height == 100)
    }

    @Test func pagesAreWhiteUnlessTheServerSaysTransparent() throws {
        let corner = TestPDF.document([TestPDF.Page(content: "1 0 0 rg 50 25 100 50 re f")])
        let white = try pixels(of: try ImageProcessor.processBlocking(corner, options: options()))
        #expect(white.pixel(x: 2, y: 2) == [255, 255, 255] && white.pixel(x: 100, y: 50) == [255, 0, 0])
        let clear = try pixels(of: try ImageProcessor.processBlocking(corner, options: options { $0.pdfPages?.background = false }))
        #expect(clear.bands == 4 && clear.pixel(x: 2, y: 2)[3] == 0)
    }

    @Test func aVastPageIsDrawnWithinThePixelLimit() throws {
        // 14400 points square (200 inches), asked at 8000 pixels a side.
        let vast = TestPDF.document([.filled(0, 1, 0, width: 14_400, height: 14_400)])
        let drawn = try ImageProcessor.processBlocking(vast, options: options([.resize(Resize(width: 8000, height: 8000))]) {
            $0.maxSourcePixels = 1_000_000
        })
        #expect(drawn.width <= 1000 && drawn.height <= 1000)
    }

    @Test func tenThousandPagesOneDrawn() throws {
        let pages = (0..<10_000).map { _ in TestPDF.Page.filled(0.5, 0.5, 0.5, width: 10, height: 10) }
        let document = TestPDF.document(pages)
        let last = try ImageProcessor.processBlocking(document, options: options(page: 9_999))
        #expect(last.width == 10 && last.height == 10)
    }

    @Test func actionsAreNeverRun() throws {
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-pdf-launch-\(UUID().uuidString)")
        let document = TestPDF.document([.filled(1, 1, 0)],
                                        catalogExtra: "/OpenAction << /S /Launch /F (/usr/bin/touch) /P (\(marker.path)) >> /AA << /WC << /S /JavaScript /JS (app.alert\\(1\\)) >> >>")
        let drawn = try ImageProcessor.processBlocking(document, options: options())
        #expect(drawn.width == 200)
        #expect(!FileManager.default.fileExists(atPath: marker.path))
    }

    @Test func damagedDocumentsAreRefusedWithAReason() {
        let cut = twoPages.prefix(40)
        let refused = refusal(Data(cut), options())
        #expect(refused?.kind == .corruptImage && refused?.reason.contains("PDF") == true, "\(String(describing: refused))")
        #expect(refusal(Data("%PDF-1.7\n".utf8) + Data(repeating: 0x41, count: 5000), options())?.kind == .corruptImage)
    }

    /// The child's address-space limit holds: a page drawn larger than it
    /// allows ends the child, not this process, and the next page is drawn.
    @Test(.enabled(if: Variants.measuresMemory, "a sanitized child runs without its address-space limit"))
    func theChildsMemoryLimitEndsOnlyTheChild() throws {
        let large = TestPDF.document([.filled(0, 1, 0, width: 10_000, height: 10_000)])
        let refused = refusal(large, options([.resize(Resize(width: 9000, height: 9000))]) {
            $0.maxSourcePixels = 81_000_000
            $0.maxDecodeMemory = 4 << 30
            $0.pdfPages?.maxMemory = 512 << 20
        })
        // Its memory limit, named: not the clock (a timeout passed here too
        // once, and would hide a limit that no longer holds).
        #expect(refused?.kind == .tooComplex && refused?.reason.contains("512 MiB") == true, "\(String(describing: refused))")
        #expect(try ImageProcessor.processBlocking(twoPages, options: options()).width == 200)
    }

    /// The child is paid from the request's budget: with a budget that
    /// leaves it 100 MiB past what it holds before it works and the
    /// output's reservation, the child runs under its base and those
    /// 100 MiB, not the 4 GiB it may be given; with less than its resident
    /// base, it never starts.
    @Test func theChildsMemoryComesOutOfTheRequestsBudget() throws {
        let large = TestPDF.document([.filled(0, 1, 0, width: 10_000, height: 10_000)])
        let pixels = 81_000_000
        let output = pixels * 4 + pixels / 8 + (1 << 20)
        func limited(budget: Int) -> ProcessingOptions {
            options([.resize(Resize(width: 9000, height: 9000))]) {
                $0.maxSourcePixels = pixels
                $0.maxDecodeMemory = budget
                $0.pdfPages?.maxMemory = 4 << 30
            }
        }
        let granted = (ChildMemory.base + (100 << 20)) >> 20
        let small = Variants.measuresMemory ? refusal(large, limited(budget: ChildMemory.residentBase + output + (100 << 20))) : nil
        #expect(!Variants.measuresMemory || small?.kind == .tooComplex && small?.reason.contains("\(granted) MiB") == true, "\(String(describing: small))")
        let none = refusal(large, limited(budget: ChildMemory.residentBase - (1 << 20)))
        #expect(none?.kind == .tooMuchMemory && none?.reason.contains("the child that draws the PDF page") == true, "\(String(describing: none))")
    }

    /// Forms that draw forms: 10^9 rectangles from a few hundred bytes.
    /// The run's deadline ends the child, and the next page is drawn.
    @Test func aFormBombIsStoppedAtTheDeadline() throws {
        var bounded = options()
        bounded.limits.maxProcessingTime = .seconds(2)
        let started = ContinuousClock.now
        let refused = refusal(TestPDF.formBomb(depth: 9, fanout: 10), bounded)
        #expect(refused?.kind == .processingTimedOut, "\(String(describing: refused))")
        #expect(ContinuousClock.now - started < .seconds(30), "stopped, not run to its end")
        #expect(try ImageProcessor.processBlocking(twoPages, options: options()).width == 200)
    }
}
