package import Darkroom
import DarkroomImaging
package import Foundation

/// What the child process that draws a PDF page runs (`darkroom
/// render-pdf-page`): linked by the executable only, never by the library.
extension PDFPageDrawing {
    /// Draws page `page` (from 0) of `pdf`, and the `pages - 1` after it
    /// where there are, stacked top to bottom, as an uncompressed PNG after
    /// the scale it is drawn at: the plan's (its first resize's box met;
    /// none: 72 pixels an inch), within `maxPixels`. Call it only in a
    /// process of its own, with its limits set: it runs poppler on the bytes.
    package static func draw(_ pdf: Data, page: Int, pages count: Int = 1, plan: VectorPlan?, maxResultDimension: Int, maxPixels: Int,
                            background: Bool) -> Outcome {
        do {
            try VipsRuntime.start()
            VipsRuntime.allowPDF()
            return try withRawBytes(of: pdf) { raw throws(VipsError) -> Outcome in
                let first = try VImage.loadPDF(raw, page: 0, scale: 1, transparent: !background)
                let pages = max(1, first.pdfPageCount)
                guard (0..<pages).contains(page) else { return .pageOutOfRange(pages: pages) }
                let count = max(1, min(count, pages - page))
                let header = page == 0 && count == 1 ? first : try VImage.loadPDF(raw, page: page, pages: count, scale: 1, transparent: !background)
                let scale = Self.scale(width: header.width, height: header.height, plan: plan, maxResultDimension: maxResultDimension,
                                       maxPixels: maxPixels)
                var image = scale == 1 ? header : try VImage.loadPDF(raw, page: page, pages: count, scale: scale, transparent: !background)
                // On white, the alpha says nothing: dropped.
                if background { image = try image.flattenedOnWhite() }
                // In the child: its kernel limits bound it, the switch is never pulled.
                let png = Data(try VipsKillSwitch().armed(image) { pass throws(VipsError) in try image.storedPNG(pass) })
                return .page(VectorDrawingOutput.written(png: png, scale: scale))
            }
        } catch {
            return .unreadable(error.message)
        }
    }
}
