import DarkroomImaging
import Foundation

/// PDF sources: one page drawn by a child process (see ``PDFPages``), then
/// run through the usual steps as the PNG it is.
extension ProcessingRun {
    /// The answer to a PDF source.
    func pdfRun() throws(DarkroomError) -> ProcessedImage {
        let asked = options.pages
        guard asked.count == 1 else {
            throw .invalidOption("pages \(asked.first) + \(asked.count): a PDF answers one page at a time")
        }
        let png = try drawnPDFPage(asked.first, box: firstResizeBox())
        var drawing = options
        // The drawing is bounded by the pixel limit; its bytes are not the source's.
        drawing.limits.maxSourceBytes = .max
        drawing.pages = PageSelection()
        var run = ProcessingRun(data: png, options: drawing, killSwitch: killSwitch)
        run.usesThumbnail = usesThumbnail
        run.kernels = kernels
        run.trace = trace
        return try run.runUntimed()
    }

    /// The box the first resize asks for, in pixels at its device pixel
    /// ratio: the page is drawn to cover it.
    private func firstResizeBox() -> (width: Int, height: Int) {
        guard case .resize(let resize)? = options.operations.first else { return (0, 0) }
        let dpr = resize.dpr ?? 1
        return (Int((Double(resize.width ?? 0) * dpr).rounded()), Int((Double(resize.height ?? 0) * dpr).rounded()))
    }

    /// What `/info` says of a PDF source: that of its page drawn at 72
    /// pixels an inch.
    func pdfInspect(includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        let png = try drawnPDFPage(asked.page, box: (0, 0))
        var drawing = options
        drawing.limits.maxSourceBytes = .max
        var onePage = asked
        onePage.page = 0
        var info = try ProcessingRun(data: png, options: drawing, killSwitch: killSwitch).inspect(includeGPS: includeGPS, asked: onePage)
        info.format = .pdf
        return info
    }

    /// Page `page` (from 0), as a PNG, from the child.
    func drawnPDFPage(_ page: Int, box: (width: Int, height: Int)) throws(DarkroomError) -> Data {
        let limits = options.limits
        if data.count > limits.maxSourceBytes {
            throw DarkroomError(.tooManyBytes, "the PDF is \(data.count) bytes, over the limit of \(limits.maxSourceBytes) bytes")
        }
        guard let pdf = limits.pdfPages else {
            throw DarkroomError(.notAnImage, "the input is a PDF document, and PDF pages are not drawn here: libvips marks its PDF loader (poppler) untrusted (darkroom serve --pdf turns it on, in a child process of its own)")
        }
        guard (0...100_000).contains(page) else { throw .invalidOption("page \(page) is outside 0...100000") }
        guard PDFPages.maxMemoryRange.contains(pdf.maxMemory), !pdf.command.isEmpty else {
            throw .invalidOption("the PDF child's memory of \(pdf.maxMemory) bytes is outside \(PDFPages.maxMemoryRange)")
        }
        let seconds = max(1, Int(limits.maxProcessingTime.components.seconds))
        let arguments = PDFPageDrawing.arguments(page: page, box: box, maxPixels: limits.maxSourcePixels, maxMemory: pdf.maxMemory,
                                                 maxSeconds: seconds, background: pdf.background)
        let (status, output) = try childDrawing(pdf.command + arguments, maxMemory: pdf.maxMemory, what: "the PDF page")
        switch status {
        case PDFPageDrawing.Outcome.page(Data()).status:
            return output
        case PDFPageDrawing.Outcome.pageOutOfRange(pages: 0).status:
            let pages = Int(String(decoding: output, as: UTF8.self)) ?? 0
            throw .invalidOption("page \(page) was asked of a PDF with \(pages) page\(pages == 1 ? "" : "s") (counted from 0)")
        default:
            throw DarkroomError(.corruptImage, "the PDF could not be read", underlying: String(decoding: output, as: UTF8.self))
        }
    }
}

extension ProcessingRun {
    /// Runs a child that draws a source (a PDF page, a video frame) under
    /// the run's deadline and kill switch, reading back at most the pixel
    /// limit's uncompressed PNG: its exit status and output, or the error
    /// of a child ended by a limit (its own memory or CPU, or the deadline).
    func childDrawing(_ command: [String], maxMemory: Int, what: String) throws(DarkroomError) -> (status: Int32, output: Data) {
        let limits = options.limits
        let seconds = max(1, Int(limits.maxProcessingTime.components.seconds))
        // An uncompressed RGBA PNG of the pixel limit, and its headers.
        let maxOutput = MemoryCost.product(limits.maxSourcePixels, 4) + limits.maxSourcePixels / 8 + (1 << 20)
        try reserveMemory(maxOutput, for: "\(what) drawn at up to \(limits.maxSourcePixels) pixels")
        let finished = try ChildProcess.run(command, input: data, maxOutput: maxOutput,
                                            deadline: .now + limits.maxProcessingTime, killSwitch: killSwitch)
        if killSwitch.isPulled {
            throw killSwitch.hasExpired ? DarkroomError(.processingTimedOut, "drawing \(what) took longer than the limit of \(seconds) s and was stopped") : .cancelled
        }
        if finished.outputOverflowed {
            throw DarkroomError(.tooManyPixels, "\(what) drawn was larger than the pixel limit of \(limits.maxSourcePixels) allows")
        }
        // Its memory or CPU limit (a crash, or libvips' own "out of
        // memory" at the address-space limit), or a crash in the parser:
        // the child's end only.
        let ranOutOfMemory = finished.status != 0 && String(decoding: finished.output.prefix(2000), as: UTF8.self).contains("out of memory")
        guard !finished.signalled, finished.status < 64, !ranOutOfMemory else {
            throw DarkroomError(.tooComplex, "\(what) could not be drawn within the limits of \(maxMemory >> 20) MiB and \(seconds) s of processing")
        }
        return (finished.status, finished.output)
    }
}
