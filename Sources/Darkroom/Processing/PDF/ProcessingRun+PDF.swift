import DarkroomImaging
import Foundation

/// PDF sources: one page drawn by a child process (see ``PDFPages``), then
/// run through the usual steps as the PNG it is.
enum PDFSource: DrawnSource {
    static let format = ImageFormat.pdf
    static func run(_ run: ProcessingRun) throws(DarkroomError) -> ProcessedImage { try run.pdfRun() }
    static func inspect(_ run: ProcessingRun, includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        try run.pdfInspect(includeGPS: includeGPS, asked: asked)
    }
}

extension ProcessingRun {
    /// The answer to a PDF source: the page drawn at the scale its first
    /// resize asks (``VectorPlan``), then the steps on it.
    func pdfRun() throws(DarkroomError) -> ProcessedImage {
        let asked = options.pages
        let plan = VectorPlan(options.operations)
        let (png, scale) = try drawnPDFPage(asked.first, count: asked.count, plan: plan)
        var options = options
        if plan != nil { options.operations = VectorPlan.steps(options.operations, drawnAt: scale) }
        return try runOfDrawing(png, options: options).runUntimed()
    }

    /// What `/info` says of a PDF source: that of its page drawn at 72
    /// pixels an inch.
    func pdfInspect(includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        var onePage = asked
        onePage.page = 0
        var info = try runOfDrawing(try drawnPDFPage(asked.page, plan: nil).png).inspect(includeGPS: includeGPS, asked: onePage)
        info.format = .pdf
        return info
    }

    /// Page `page` (from 0), and the `count - 1` after it where there are,
    /// stacked, as a PNG, from the child; with the scale it drew at.
    func drawnPDFPage(_ page: Int, count: Int = 1, plan: VectorPlan?) throws(DarkroomError) -> (png: Data, scale: Double) {
        let limits = options.limits
        guard let pdf = limits.pdfPages else {
            throw DarkroomError(.notAnImage, "the input is a PDF document, and PDF pages are not drawn here: libvips marks its PDF loader (poppler) untrusted (darkroom serve --pdf turns it on, in a child process of its own)")
        }
        guard (0...100_000).contains(page), (1...PageSelection.maxCount).contains(count) else {
            throw .invalidOption("pages \(page) + \(count): the first is 0 to 100000, the count 1 to \(PageSelection.maxCount)")
        }
        let seconds = max(1, Int(limits.maxProcessingTime.components.seconds))
        let (status, output) = try childDrawing(pdf.command, arguments: { memory, pixels in
            PDFPageDrawing.arguments(page: page, pages: count, plan: plan, maxResultDimension: limits.maxResultDimension,
                                     maxPixels: pixels, maxMemory: memory,
                                     maxSeconds: seconds, background: pdf.background)
        }, maxMemory: pdf.maxMemory, what: "the PDF page")
        switch status {
        case PDFPageDrawing.Outcome.page(Data()).status:
            guard let drawing = VectorDrawingOutput.read(output) else {
                throw DarkroomError(.corruptImage, "the PDF could not be read", underlying: "the drawing child's answer is cut short")
            }
            return drawing
        case PDFPageDrawing.Outcome.pageOutOfRange(pages: 0).status:
            let pages = Int(String(decoding: output, as: UTF8.self)) ?? 0
            throw .invalidOption("page \(page) was asked of a PDF with \(pages) page\(pages == 1 ? "" : "s") (counted from 0)")
        default:
            throw DarkroomError(.corruptImage, "the PDF could not be read", underlying: String(decoding: output, as: UTF8.self))
        }
    }
}
