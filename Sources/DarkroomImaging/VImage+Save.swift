internal import CVips

extension VImage {
    /// Encoders, each stripping metadata.
    package enum Encoder: Sendable {
        case jpeg(quality: Int, progressive: Bool)
        case png
        case webp(quality: Int)
        case avif(quality: Int)
        /// 256 colours at most, dithered by libvips' cgif saver.
        case gif
        /// Lossless (deflate).
        case tiff
    }

    /// Encodes the image. This is where libvips decodes and computes the
    /// pixels of the whole chain, so it is the long call.
    package func encoded(_ encoder: Encoder) throws(VipsError) -> [UInt8] {
        try encoded(encoder) { [UInt8]($0) }
    }

    /// Encodes the image and hands the encoder's own buffer to `body`, which
    /// copies what it keeps: the only copy of the output bytes.
    package func encoded<R>(_ encoder: Encoder, _ body: (UnsafeRawBufferPointer) -> R) throws(VipsError) -> R {
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        let status: Int32
        let name: String
        switch encoder {
        case .jpeg(let quality, let progressive):
            name = "jpegsave_buffer"
            status = darkroom_vips_jpegsave(pointer, &buffer, &length, Int32(quality), progressive ? 1 : 0)
        case .png:
            name = "pngsave_buffer"
            status = darkroom_vips_pngsave(pointer, &buffer, &length)
        case .webp(let quality):
            name = "webpsave_buffer"
            status = darkroom_vips_webpsave(pointer, &buffer, &length, Int32(quality))
        case .avif(let quality):
            name = "heifsave_buffer"
            status = darkroom_vips_avifsave(pointer, &buffer, &length, Int32(quality))
        case .gif:
            name = "gifsave_buffer"
            status = darkroom_vips_gifsave(pointer, &buffer, &length)
        case .tiff:
            name = "tiffsave_buffer"
            status = darkroom_vips_tiffsave(pointer, &buffer, &length)
        }
        guard status == 0, let buffer else {
            throw VipsError.fromBuffer(operation: name)
        }
        defer { g_free(buffer) }
        return body(UnsafeRawBufferPointer(start: buffer, count: length))
    }
}
