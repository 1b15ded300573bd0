internal import CThumbnail

/// A small image from a big JPEG, PNG or WebP without libvips: the
/// format's own decoder (libjpeg-turbo at the DCT scale, libdeflate,
/// libwebp at the shrink-on-load scale), then Lanczos-3 in fixed point.
///
/// For outputs a fraction of the source's size, libvips' per-image
/// machinery (operation objects, regions, its worker threads) costs more
/// than the pixels; this path has none of it. It takes the common kinds
/// only (YCbCr JPEG; 8-bit RGB PNG; still, opaque WebP; no colour profile
/// to apply). Anything else, or anything the decoder finds amiss, is
/// declined, so that libvips handles it and says what is wrong.
package enum Thumbnail {
    package enum Format: Sendable {
        case jpeg, png, webp
    }

    package struct Header: Sendable, Equatable {
        package var width: Int
        package var height: Int
        /// Whether this path decodes the image at all.
        package var isSupported: Bool
        /// The EXIF orientation, 1 when there is none.
        package var orientation: Int
        /// An embedded ICC profile other than sRGB: the pixels need a
        /// colour transform, which this path does not make.
        package var hasForeignProfile = false
        /// An EXIF copyright, which answers keep by default.
        package var hasCopyright = false
    }

    /// The header and the EXIF orientation, or nil when the decoder finds
    /// anything amiss.
    package static func header(_ bytes: UnsafeRawBufferPointer, format: Format) -> Header? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var header = dr_image_header()
        let status = switch format {
        case .jpeg: dr_jpeg_read_header(base, bytes.count, &header)
        case .png: dr_png_read_header(base, bytes.count, &header)
        case .webp: dr_webp_read_header(base, bytes.count, &header)
        }
        guard status == Int32(DR_OK) else { return nil }
        return Header(width: Int(header.width), height: Int(header.height), isSupported: header.supported != 0,
                      orientation: Int(header.orientation), hasForeignProfile: header.foreign_profile != 0,
                      hasCopyright: header.copyright != 0)
    }

    package enum Failure: Error, Equatable {
        /// Not for this path: let libvips take it.
        case declined
        /// The kill switch was pulled.
        case cancelled
    }

    /// Decodes at 1/`shrink` (JPEG: 1, 2, 4 or 8; WebP: any; PNG: 1 only)
    /// and resamples to `width` x `height`, no larger than the decoded
    /// size. JPEG and PNG check the kill switch as rows arrive; a WebP's
    /// decode is one call. A PNG whose raw pixels would take more than
    /// `maxRawBytes` is declined (libvips streams it instead).
    package static func decode(
        _ bytes: UnsafeRawBufferPointer,
        format: Format,
        shrink: Int,
        width: Int,
        height: Int,
        maxRawBytes: Int = 256 << 20,
        killSwitch: VipsKillSwitch
    ) throws(Failure) -> RGBXImage {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .declined }
        var pixels: UnsafeMutablePointer<UInt8>?
        let context = Unmanaged.passUnretained(killSwitch).toOpaque()
        let pulled: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
            guard let context else { return 0 }
            return Unmanaged<VipsKillSwitch>.fromOpaque(context).takeUnretainedValue().isPulled ? 1 : 0
        }
        let status: Int32 = withExtendedLifetime(killSwitch) {
            switch format {
            case .jpeg:
                return dr_jpeg_decode_resampled(base, bytes.count, Int32(shrink), Int32(width), Int32(height), &pixels, pulled, context)
            case .png:
                guard shrink == 1 else { return Int32(DR_DECLINED) }
                return dr_png_decode_resampled(base, bytes.count, Int32(width), Int32(height), maxRawBytes, &pixels, pulled, context)
            case .webp:
                // One call, which cannot be stopped midway: the switch is looked at either side of it.
                if killSwitch.isPulled { return Int32(DR_CANCELLED) }
                let status = dr_webp_decode_resampled(base, bytes.count, Int32(shrink), Int32(width), Int32(height), &pixels)
                return killSwitch.isPulled ? Int32(DR_CANCELLED) : status
            }
        }
        if status == Int32(DR_CANCELLED) {
            if let pixels { dr_jpeg_free(pixels) }
            throw .cancelled
        }
        guard status == Int32(DR_OK), let pixels else { throw .declined }
        return RGBXImage(pixels: pixels, width: width, height: height)
    }
}
