internal import CVips

extension VImage {
    /// Encoders; each strips metadata unless told otherwise.
    package enum Encoder: Sendable {
        case jpeg(quality: Int, progressive: Bool)
        case png
        /// PNG with each row's filter chosen (as most PNGs are written).
        case pngFiltered
        case webp(quality: Int)
        case webpLossless
        case avif(quality: Int)
        /// 256 colours at most, dithered by libvips' cgif saver.
        case gif
        /// Lossless (deflate).
        case tiff
        /// Blocked in libvips until ``VipsRuntime/allowJPEGXL()``.
        case jxl(quality: Int)
    }

    /// Encodes the image. This is where libvips decodes and computes the
    /// pixels of the whole chain, so it is the long call.
    package func encoded(_ encoder: Encoder) throws(VipsError) -> [UInt8] {
        try encoded(encoder) { [UInt8]($0) }
    }

    /// A copy that keeps, of the metadata written into files, only what is
    /// asked: everything but the ICC profile (`all`), the ICC profile, or
    /// the EXIF copyright given (``copyright``'s value; nil keeps none). Save it with ``encoded(_:strip:_:)`` and `strip`
    /// off.
    package func keepingMetadata(all: Bool, colourProfile: Bool, copyright: String?) throws(VipsError) -> VImage {
        try VImage.make("copy") { out in
            if let copyright {
                copyright.withCString { darkroom_vips_keep_metadata(pointer, out, all ? 1 : 0, colourProfile ? 1 : 0, $0) }
            } else {
                darkroom_vips_keep_metadata(pointer, out, all ? 1 : 0, colourProfile ? 1 : 0, nil)
            }
        }
    }

    /// The EXIF copyright as the source's bytes say it (the photographer's
    /// part), not libexif's rendering of it; nil when there is none or it
    /// is blank.
    package var copyright: String? {
        var length = 0
        guard let blob = darkroom_vips_exif_blob(pointer, &length) else { return nil }
        guard let value = Thumbnail.exifCopyright(payload: UnsafeRawBufferPointer(start: blob, count: length)) else { return nil }
        return value.allSatisfy { $0 == " " || $0 == "\t" } ? nil : value
    }

    /// Encodes the image and hands the encoder's own buffer to `body`, which
    /// copies what it keeps: the only copy of the output bytes.
    ///
    /// - Parameter strip: drop all metadata (off: write what the image
    ///   carries; see ``keepingMetadata(all:colourProfile:copyright:)``).
    package func encoded<R>(_ encoder: Encoder, strip: Bool = true, _ body: (UnsafeRawBufferPointer) -> R) throws(VipsError) -> R {
        let strip: Int32 = strip ? 1 : 0
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        let name: String
        switch encoder {
        case .jpeg(let quality, let progressive):
            name = "jpegsave_buffer"
            status = darkroom_vips_jpegsave(pointer, &buffer, &length, Int32(quality), progressive ? 1 : 0, strip)
        case .png:
            name = "pngsave_buffer"
            status = darkroom_vips_pngsave(pointer, &buffer, &length, strip)
        case .pngFiltered:
            name = "pngsave_buffer"
            status = darkroom_vips_pngsave_filtered(pointer, &buffer, &length, strip)
        case .webp(let quality):
            name = "webpsave_buffer"
            status = darkroom_vips_webpsave(pointer, &buffer, &length, Int32(quality), strip)
        case .webpLossless:
            name = "webpsave_buffer"
            status = darkroom_vips_webpsave_lossless(pointer, &buffer, &length, strip)
        case .avif(let quality):
            name = "heifsave_buffer"
            status = darkroom_vips_avifsave(pointer, &buffer, &length, Int32(quality), strip)
        case .gif:
            name = "gifsave_buffer"
            status = darkroom_vips_gifsave(pointer, &buffer, &length, strip)
        case .tiff:
            name = "tiffsave_buffer"
            status = darkroom_vips_tiffsave(pointer, &buffer, &length, strip)
        case .jxl(let quality):
            name = "jxlsave_buffer"
            status = darkroom_vips_jxlsave(pointer, &buffer, &length, Int32(quality), strip)
        }
        guard status == 0, let buffer else {
            throw VipsError.fromBuffer(operation: name)
        }
        defer { g_free(buffer) }
        return body(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
