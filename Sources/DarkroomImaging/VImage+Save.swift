internal import CVips

extension VImage {
    /// Encoders; each strips metadata unless told otherwise.
    package enum Encoder: Sendable, Hashable, Codable {
        case jpeg(quality: Int, progressive: Bool, tuning: JPEGTuning = JPEGTuning())
        case png
        /// Interlaced, or quantised to a palette.
        case pngTuned(PNGTuning)
        /// PNG with each row's filter chosen (as most PNGs are written).
        case pngFiltered
        case webp(quality: Int, tuning: WebPTuning = WebPTuning())
        case webpLossless
        case avif(quality: Int, tuning: HEIFTuning = HEIFTuning())
        /// HEVC in HEIF, 8 bits, libvips' default effort.
        case heic(quality: Int)
        /// Uncompressed, top-down: 8-bit grey (palette), BGR or BGRA.
        case bmp
        /// One PNG inside an icon directory; 256 pixels a side at most.
        case ico
        /// 256 colours at most, dithered by libvips' cgif saver.
        case gif
        /// Lossless (deflate).
        case tiff
        /// Blocked in libvips until ``VipsRuntime/allowJPEGXL()``.
        case jxl(quality: Int, effort: Int = 4)
    }

    /// Encodes the image. This is where libvips decodes and computes the
    /// pixels of the whole chain, so it is the long call.
    package func encoded(_ encoder: Encoder, through pass: PixelPass) throws(VipsError) -> [UInt8] {
        try encoded(encoder, through: pass) { [UInt8]($0) }
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

    /// A copy stating `dpi` as its resolution, which JPEG, PNG and TIFF
    /// answers carry whether or not metadata is stripped.
    package func withResolution(dpi: Double) throws(VipsError) -> VImage {
        try VImage.make("copy") { darkroom_vips_set_resolution(pointer, $0, dpi / 25.4) }
    }

    /// Converted to the ICC profile `profile` (a path, or "srgb" or
    /// "cmyk"), which it then carries.
    package func iccTransformed(to profile: String) throws(VipsError) -> VImage {
        try VImage.make("icc_transform") { out in profile.withCString { darkroom_vips_icc_transform(pointer, out, $0) } }
    }

    /// The copyright a copy made by ``keepingMetadata(all:colourProfile:copyright:)``
    /// keeps alone (no EXIF block of its own: a saver builds one from the
    /// field, a PNG carries none); nil for any other image.
    package var keptCopyrightAlone: String? {
        guard let value = darkroom_vips_kept_copyright(pointer) else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }

    /// The EXIF copyright as the source's bytes say it (the photographer's
    /// part), not libexif's rendering of it; nil when there is none or it
    /// is blank.
    package var copyright: String? {
        var length = 0
        guard let blob = darkroom_vips_exif_blob(pointer, &length) else { return nil }
        guard let value = SourceFacts.exifCopyright(payload: UnsafeRawBufferPointer(start: blob, count: length)) else { return nil }
        return value.allSatisfy { $0 == " " || $0 == "\t" } ? nil : value
    }

    /// Encodes the image and hands the encoder's own buffer to `body`, which
    /// copies what it keeps: the only copy of the output bytes.
    ///
    /// - Parameter strip: drop all metadata (off: write what the image
    ///   carries; see ``keepingMetadata(all:colourProfile:copyright:)``).
    package func encoded<R>(_ encoder: Encoder, strip: Bool = true, through pass: PixelPass,
                            _ body: (UnsafeRawBufferPointer) -> R) throws(VipsError) -> R {
        let strip: Int32 = strip ? 1 : 0
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        let name: String
        switch encoder {
        case .jpeg(let quality, let progressive, let tuning):
            name = "jpegsave_buffer"
            if tuning == JPEGTuning() {
                status = darkroom_vips_jpegsave(pointer, &buffer, &length, Int32(quality), progressive ? 1 : 0, strip)
            } else {
                status = darkroom_vips_jpegsave_tuned(pointer, &buffer, &length, Int32(quality), progressive ? 1 : 0, strip,
                                                      tuning.noSubsample ? 1 : 0, tuning.trellisQuant ? 1 : 0, tuning.overshootDeringing ? 1 : 0,
                                                      tuning.optimizeScans ? 1 : 0, Int32(tuning.quantTable))
            }
        case .png:
            name = "pngsave_buffer"
            status = darkroom_vips_pngsave(pointer, &buffer, &length, strip)
        case .pngTuned(let tuning):
            name = "pngsave_buffer"
            status = darkroom_vips_pngsave_tuned(pointer, &buffer, &length, strip, tuning.interlaced ? 1 : 0, Int32(tuning.paletteBits ?? 0))
        case .pngFiltered:
            name = "pngsave_buffer"
            status = darkroom_vips_pngsave_filtered(pointer, &buffer, &length, strip)
        case .webp(let quality, let tuning):
            name = "webpsave_buffer"
            if tuning == WebPTuning() {
                status = darkroom_vips_webpsave(pointer, &buffer, &length, Int32(quality), strip)
            } else {
                status = darkroom_vips_webpsave_tuned(pointer, &buffer, &length, Int32(quality), strip, Int32(tuning.effort), Int32(tuning.preset),
                                                      Int32(tuning.compression), tuning.smartSubsample ? 1 : 0)
            }
        case .webpLossless:
            name = "webpsave_buffer"
            status = darkroom_vips_webpsave_lossless(pointer, &buffer, &length, strip)
        case .avif(let quality, let tuning):
            name = "heifsave_buffer"
            // 16-bit pixels (a preserved HDR source) as 12-bit AVIF.
            status = darkroom_vips_heifsave_tuned(pointer, &buffer, &length, Int32(quality), strip, 1, Int32(tuning.effort), Int32(tuning.subsample),
                                                  bytesPerSample > 1 ? 12 : 8)
        case .heic(let quality):
            name = "heifsave_buffer"
            status = darkroom_vips_heifsave_tuned(pointer, &buffer, &length, Int32(quality), strip, 0, 4, 0, 8)
        case .bmp, .ico:
            // Written here, from the pixels (libvips has no saver for them
            // but ImageMagick's, which is untrusted).
            let bytes = encoder == .bmp ? try bmpData() : try icoData(strip: strip == 1)
            return bytes.withUnsafeBytes(body)
        case .gif:
            name = "gifsave_buffer"
            status = darkroom_vips_gifsave(pointer, &buffer, &length, strip)
        case .tiff:
            name = "tiffsave_buffer"
            status = darkroom_vips_tiffsave(pointer, &buffer, &length, strip)
        case .jxl(let quality, let effort):
            name = "jxlsave_buffer"
            status = darkroom_vips_jxlsave(pointer, &buffer, &length, Int32(quality), Int32(effort), strip)
        }
        guard status == 0, let buffer else {
            throw VipsError.fromBuffer(operation: name)
        }
        defer { g_free(buffer) }
        return body(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
