internal import CVips

extension VImage {
    /// The decoders Darkroom trusts. Every other libvips loader is blocked.
    package enum Loader: Sendable {
        case jpeg, png, webp, heif, tiff, gif
        /// Blocked in libvips until ``VipsRuntime/allowJPEGXL()``.
        case jxl
    }

    /// Reads an image's header from bytes; pixels are decoded later, as the
    /// last operation pulls them (sequential access).
    ///
    /// - Parameter shrink: the shrink-on-load factor. JPEG takes 1, 2, 4 or 8;
    ///   WebP takes any; the other loaders ignore it.
    /// - Parameter randomAccess: decode to memory on first use instead of
    ///   streaming, for images whose lines are read out of order (EXIF
    ///   rotation).
    /// - Parameter page: for GIF, WebP and TIFF, the first frame or page.
    /// - Parameter pages: for GIF, WebP and TIFF, how many frames or pages
    ///   to decode from `page`, stacked top to bottom (see
    ///   ``joiningFrames(_:timing:)``), -1 for all; the other loaders read one.
    /// - Parameter thumbnail: for HEIF and AVIF, the embedded thumbnail
    ///   where there is one.
    /// - Important: `bytes` must stay valid until the image and every image
    ///   made from it are released.
    /// Reads an SVG document (sanitised: librsvg must find nothing to
    /// fetch) at `scale`, a px a pixel at 1. The pixels are rendered as they
    /// are pulled. Blocked until ``VipsRuntime/allowSVG()``.
    /// - Important: `bytes` must stay valid until the image is released.
    package static func loadSVG(_ bytes: UnsafeRawBufferPointer, scale: Double) throws(VipsError) -> VImage {
        try make("svgload_buffer") { darkroom_vips_svgload(bytes.baseAddress, bytes.count, $0, scale) }
    }

    /// `pages` pages of a PDF from `page`, stacked, drawn at `scale` times
    /// 72 pixels an inch. Its size is known before any pixel is drawn.
    package static func loadPDF(_ bytes: UnsafeRawBufferPointer, page: Int, pages: Int = 1, scale: Double,
                                transparent: Bool = false) throws(VipsError) -> VImage {
        try make("pdfload_buffer") {
            darkroom_vips_pdfload(bytes.baseAddress, bytes.count, $0, Int32(page), Int32(pages), scale, transparent ? 1 : 0)
        }
    }

    /// A PDF's page count, as its loader read it.
    package var pdfPageCount: Int { Int(darkroom_vips_pdf_pages(pointer)) }

    /// This image flattened onto white, without alpha.
    package func flattenedOnWhite() throws(VipsError) -> VImage {
        try VImage.make("flatten") { darkroom_vips_flatten_white(pointer, $0) }
    }

    /// The pixels as an uncompressed PNG, for a rendered image to be read
    /// again as a source, or an answer's pixels handed to the encoding
    /// child; `strip` false carries the metadata the image keeps (EXIF,
    /// XMP, the ICC profile, the resolution), which the child writes on.
    package func storedPNG(_ pass: PixelPass, strip: Bool = true) throws(VipsError) -> [UInt8] {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard darkroom_vips_pngsave_stored(pointer, &buffer, &length, strip ? 1 : 0) == 0, let buffer else {
            throw VipsError.fromBuffer(operation: "pngsave_buffer")
        }
        defer { g_free(buffer) }
        return [UInt8](UnsafeRawBufferPointer(start: buffer, count: length))
    }

    package static func load(
        _ bytes: UnsafeRawBufferPointer,
        loader: Loader,
        shrink: Int = 1,
        randomAccess: Bool = false,
        page: Int = 0,
        pages: Int = 1,
        thumbnail: Bool = false
    ) throws(VipsError) -> VImage {
        let pages = Int32(pages < 0 ? -1 : max(1, pages))
        let page = Int32(max(0, page))
        let base = bytes.baseAddress
        let count = bytes.count
        let access = Int32(randomAccess ? VIPS_ACCESS_RANDOM.rawValue : VIPS_ACCESS_SEQUENTIAL.rawValue)
        switch loader {
        case .jpeg:
            return try make("jpegload_buffer") { darkroom_vips_jpegload(base, count, $0, Int32(shrink), access) }
        case .webp:
            return try make("webpload_buffer") { darkroom_vips_webpload(base, count, $0, 1.0 / Double(max(shrink, 1)), access, page, pages) }
        case .png:
            return try make("pngload_buffer") { darkroom_vips_pngload(base, count, $0, access) }
        case .heif:
            return try make("heifload_buffer") { darkroom_vips_heifload(base, count, $0, access, thumbnail ? 1 : 0) }
        case .tiff:
            return try make("tiffload_buffer") { darkroom_vips_tiffload(base, count, $0, access, page, pages) }
        case .gif:
            return try make("gifload_buffer") { darkroom_vips_gifload(base, count, $0, access, page, pages) }
        case .jxl:
            return try make("jxlload_buffer") { darkroom_vips_jxlload(base, count, $0, access) }
        }
    }
}
