internal import CJPEG

/// JPEG in, small JPEG out, on libjpeg-turbo alone: a scaled decode,
/// Lanczos-3 in fixed point, one encode.
///
/// For outputs a fraction of the source's size, libvips' per-image
/// machinery (operation objects, regions, its worker threads) costs more
/// than the pixels; this path has none of it. It takes plain 3-component
/// YCbCr JPEGs only. Anything it cannot take, or that the decoder warns
/// about, is declined (`nil`), so that libvips handles it and says what is
/// wrong.
package enum JPEGThumbnail {
    package struct Header: Sendable, Equatable {
        package var width: Int
        package var height: Int
        /// Three-component YCbCr, the only kind this path decodes.
        package var isYCbCr: Bool
        /// The EXIF orientation, 1 when there is none.
        package var orientation: Int
        /// An embedded ICC profile other than sRGB: the pixels need a
        /// colour transform, which this path does not make.
        package var hasForeignProfile = false
        /// An EXIF copyright, which answers keep by default.
        package var hasCopyright = false
    }

    /// The header and the EXIF orientation, or nil when libjpeg finds
    /// anything amiss.
    package static func header(_ bytes: UnsafeRawBufferPointer) -> Header? {
        guard let base = bytes.baseAddress else { return nil }
        var header = dr_jpeg_header()
        guard dr_jpeg_read_header(base.assumingMemoryBound(to: UInt8.self), bytes.count, &header) == Int32(DR_JPEG_OK) else {
            return nil
        }
        return Header(width: Int(header.width), height: Int(header.height),
                      isYCbCr: header.is_ycbcr != 0, orientation: Int(header.orientation),
                      hasForeignProfile: header.foreign_profile != 0, hasCopyright: header.copyright != 0)
    }

    package enum Failure: Error, Equatable {
        /// Not for this path: let libvips take it.
        case declined
        /// The kill switch was pulled.
        case cancelled
    }

    /// Decodes at 1/`shrink` (1, 2, 4 or 8) and resamples to `width` x
    /// `height`, no larger than the decoded size. The kill switch is checked
    /// every 16 decoded rows.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer,
        shrink: Int,
        width: Int,
        height: Int,
        killSwitch: VipsKillSwitch
    ) throws(Failure) -> RGBXImage {
        guard let base = bytes.baseAddress else { throw .declined }
        var pixels: UnsafeMutablePointer<UInt8>?
        let context = Unmanaged.passUnretained(killSwitch).toOpaque()
        let status = withExtendedLifetime(killSwitch) {
            dr_jpeg_decode_resampled(base.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(shrink),
                                     Int32(width), Int32(height), &pixels, { context in
                                         guard let context else { return 0 }
                                         return Unmanaged<VipsKillSwitch>.fromOpaque(context).takeUnretainedValue().isPulled ? 1 : 0
                                     }, context)
        }
        switch status {
        case Int32(DR_JPEG_OK):
            guard let pixels else { throw .declined }
            return RGBXImage(pixels: pixels, width: width, height: height)
        case Int32(DR_JPEG_CANCELLED):
            throw .cancelled
        default:
            throw .declined
        }
    }
}

/// 8-bit RGB pixels, four bytes each (the fourth unused), owned and freed
/// by this object. Not shared between threads.
package final class RGBXImage {
    private let pixels: UnsafeMutablePointer<UInt8>
    package let width: Int
    package let height: Int

    fileprivate init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        self.pixels = pixels
        self.width = width
        self.height = height
    }

    deinit { dr_jpeg_free(pixels) }

    /// Multiplies every pixel by a 3x3 matrix (row-major), rounding and
    /// clipping as the in-memory libvips step does (16.16 fixed point).
    package func recombine(_ matrix: [Double]) {
        precondition(matrix.count == 9, "a 3x3 matrix has nine entries")
        let fixed = matrix.map { Int32(($0 * 65536).rounded(.toNearestOrAwayFromZero)) }
        fixed.withUnsafeBufferPointer { dr_jpeg_recombine(pixels, Int32(width), Int32(height), $0.baseAddress) }
    }

    /// Encodes the `width` x `height` window at `left`, `top` as a baseline
    /// JPEG without metadata, and hands the encoder's buffer to `body`.
    package func encodedJPEG<R>(
        left: Int, top: Int, width: Int, height: Int, quality: Int,
        _ body: (UnsafeRawBufferPointer) -> R
    ) -> R? {
        guard left >= 0, top >= 0, width > 0, height > 0,
              left + width <= self.width, top + height <= self.height, (1...100).contains(quality)
        else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard dr_jpeg_encode(pixels, Int32(self.width), Int32(left), Int32(top), Int32(width), Int32(height),
                             Int32(quality), &output, &length) == Int32(DR_JPEG_OK),
              let output
        else { return nil }
        defer { dr_jpeg_free(output) }
        return body(UnsafeRawBufferPointer(start: output, count: length))
    }
}
