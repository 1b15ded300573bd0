import Foundation
internal import CCairo

/// An error reported by cairo.
package struct CairoError: Error, Sendable, CustomStringConvertible {
    package var operation: String
    package var message: String
    package var description: String { "\(operation): \(message)" }

    init(_ operation: String, status: Int32) {
        self.operation = operation
        self.message = String(cString: cairo_status_to_string(cairo_status_t(UInt32(status))))
    }
}

/// A multi-page PDF written with cairo, page by page, each page one JPEG
/// embedded as it is.
///
/// Not `Sendable`, and unlike libvips images it lives for a whole book: it
/// must be used from one thread at a time (the photobook keeps it on an
/// executor of one thread) and closed with ``finish()``.
package final class PDFWriter {
    private let surface: OpaquePointer
    private let context: OpaquePointer
    private var finished = false
    package let pageWidth: Double
    package let pageHeight: Double

    /// - Parameters: width and height of every page, in points (1/72 inch).
    package init(path: String, pageWidth: Double, pageHeight: Double) throws(CairoError) {
        surface = cairo_pdf_surface_create(path, pageWidth, pageHeight)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            throw CairoError("cairo_pdf_surface_create", status: Int32(status.rawValue))
        }
        context = cairo_create(surface)
        self.pageWidth = pageWidth
        self.pageHeight = pageHeight
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    /// Adds a page with `jpeg` (of `width` x `height` pixels) drawn in the
    /// rectangle (x, y, w, h) in points, and an optional caption below it.
    package func addPage(jpeg: [UInt8], width: Int, height: Int, x: Double, y: Double, w: Double, h: Double,
                         caption: String?, captionY: Double, captionSize: Double) throws(CairoError) {
        let status = jpeg.withUnsafeBufferPointer { bytes in
            darkroom_cairo_draw_jpeg(context, bytes.baseAddress, UInt(bytes.count), Int32(width), Int32(height), x, y, w, h)
        }
        guard status == 0 else { throw CairoError("draw JPEG", status: status) }
        if let caption {
            darkroom_cairo_caption(context, caption, pageWidth / 2, captionY, captionSize)
        }
        cairo_show_page(context)
        let pageStatus = cairo_status(context)
        guard pageStatus == CAIRO_STATUS_SUCCESS else { throw CairoError("cairo_show_page", status: Int32(pageStatus.rawValue)) }
    }

    /// Writes the rest of the file and closes it.
    package func finish() throws(CairoError) {
        guard !finished else { return }
        finished = true
        cairo_surface_finish(surface)
        let status = cairo_surface_status(surface)
        guard status == CAIRO_STATUS_SUCCESS else { throw CairoError("cairo_surface_finish", status: Int32(status.rawValue)) }
    }
}
