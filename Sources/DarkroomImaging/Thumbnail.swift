internal import CImageFacts
internal import CThumbnail

/// A small image from a big JPEG, PNG, WebP or AVIF without libvips: the
/// format's own decoder (libjpeg-turbo at the DCT scale, libdeflate,
/// libwebp at the shrink-on-load scale, libavif with libheif's colour
/// arithmetic), then libvips' resampling arithmetic in C, the crop made as
/// it goes.
///
/// For outputs a fraction of the source's size, libvips' per-image
/// machinery (operation objects, regions, its worker threads) costs more
/// than the pixels; this path has none of it. It takes the common kinds
/// only (YCbCr JPEG; 8-bit RGB PNG; still, opaque WebP; still, opaque
/// 8-bit AVIF; no colour profile but sRGB). Anything else, or anything the decoder finds amiss, is
/// declined, so that libvips handles it and says what is wrong.
package enum Thumbnail {
    package enum Format: Sendable {
        case jpeg, png, webp, avif
    }

    package struct Header: Sendable, Equatable {
        package var width: Int
        package var height: Int
        /// Whether this path decodes the image at all.
        package var isSupported: Bool
        /// The EXIF orientation, 1 when there is none.
        package var orientation: Int
        /// An embedded ICC profile other than sRGB (``SourceFacts/isSRGB(profile:)``):
        /// the pixels need a colour transform, which this path does not make.
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
        case .avif: dr_avif_read_header(base, bytes.count, &header)
        }
        guard status == Int32(DR_OK) else { return nil }
        return Header(width: Int(header.width), height: Int(header.height), isSupported: header.supported != 0,
                      orientation: Int(header.orientation), hasForeignProfile: header.foreign_profile != 0,
                      hasCopyright: header.copyright != 0)
    }

    // MARK: - The plan

    /// The work of one decode: the decoder's scale, and libvips' resize of
    /// the decoded image, kept to a crop.
    package struct Plan: Sendable, Equatable {
        /// JPEG: 1, 2, 4 or 8; WebP: any; PNG and AVIF: 1.
        package var shrink: Int
        /// The size the decoder gives at that scale.
        package var decodedWidth: Int
        package var decodedHeight: Int
        /// What vips_resize is given for each side: scaled / decoded (1:
        /// that side is kept).
        package var horizontalScale: Double
        package var verticalScale: Double
        /// The part of the scaled image that is made.
        package var cropLeft: Int
        package var cropTop: Int
        package var cropWidth: Int
        package var cropHeight: Int
        package var kernels: Kernels = .best

        package init(shrink: Int, decodedWidth: Int, decodedHeight: Int, horizontalScale: Double, verticalScale: Double,
                     cropLeft: Int, cropTop: Int, cropWidth: Int, cropHeight: Int, kernels: Kernels = .best) {
            self.shrink = shrink
            self.decodedWidth = decodedWidth
            self.decodedHeight = decodedHeight
            self.horizontalScale = horizontalScale
            self.verticalScale = verticalScale
            self.cropLeft = cropLeft
            self.cropTop = cropTop
            self.cropWidth = cropWidth
            self.cropHeight = cropHeight
            self.kernels = kernels
        }

        fileprivate var spec: dr_resample_spec {
            dr_resample_spec(in_width: Int32(clamping: decodedWidth), in_height: Int32(clamping: decodedHeight), in_bands: 3,
                             hscale: horizontalScale, vscale: verticalScale,
                             crop_left: Int32(clamping: cropLeft), crop_top: Int32(clamping: cropTop),
                             crop_width: Int32(clamping: cropWidth), crop_height: Int32(clamping: cropHeight),
                             kernels: kernels.c)
        }
    }

    /// Which of the resampler's kernel sets runs: each gives the same bytes.
    package enum Kernels: Sendable, CaseIterable {
        case best, scalar, sse2, avx2

        fileprivate var c: dr_kernels {
            switch self {
            case .best: DR_KERNELS_BEST
            case .scalar: DR_KERNELS_SCALAR
            case .sse2: DR_KERNELS_SSE2
            case .avx2: DR_KERNELS_AVX2
            }
        }

        /// Whether this processor runs them.
        package var isAvailable: Bool { dr_kernels_available(c) != 0 }
    }

    /// The size libvips' loader gives a `width` x `height` image at
    /// 1/`shrink`: the JPEG loader keeps the whole pixels of libjpeg's
    /// scaled decode (rounding down), the WebP loader rounds to nearest.
    package static func decodedSize(format: Format, width: Int, height: Int, shrink: Int) -> (width: Int, height: Int) {
        switch format {
        case .jpeg, .png, .avif:
            return (width / shrink, height / shrink)
        case .webp:
            var w: Int32 = 0, h: Int32 = 0
            dr_webp_scaled_size(Int32(clamping: width), Int32(clamping: height), Int32(clamping: shrink), &w, &h)
            return (Int(w), Int(h))
        }
    }

    /// The size libvips' resize makes of the decoded image (before the
    /// crop), or nil when the plan is out of range.
    package static func scaledSize(of plan: Plan) -> (width: Int, height: Int)? {
        var whole = plan
        (whole.cropLeft, whole.cropTop, whole.cropWidth, whole.cropHeight) = (0, 0, 1, 1)
        var spec = whole.spec
        var width: Int32 = 0, height: Int32 = 0
        dr_resample_scaled_size(&spec, &width, &height)
        return width > 0 && height > 0 ? (Int(width), Int(height)) : nil
    }

    /// The bytes the decode of `plan` holds at most, besides the source
    /// (a multi-scan JPEG's coefficients, a PNG's raw pixels, a WebP's
    /// decoded image, the resampler's rows and the result), from the
    /// headers alone; nil when the image is not for this path.
    package static func memory(_ bytes: UnsafeRawBufferPointer, format: Format, plan: Plan) -> Int? {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var spec = plan.spec
        let resampler = dr_resampler_bytes(&spec)
        guard resampler != Int.max, resampler < Int.max / 2 else { return nil }
        let decoder: Int
        switch format {
        case .jpeg:
            var info = dr_jpeg_info()
            guard dr_jpeg_inspect(base, bytes.count, &info) == Int32(DR_OK) else { return nil }
            // libjpeg's own working rows are small beside these.
            decoder = dr_jpeg_coefficient_bytes(&info) + 1 << 20
        case .png:
            let raw = dr_png_decode_bytes(base, bytes.count)
            guard raw != Int.max, raw < Int.max / 2 else { return nil }
            decoder = raw
        case .webp:
            decoder = plan.decodedWidth * plan.decodedHeight * 3 + 1 << 20
        case .avif:
            // dav1d's frame (1.5 bytes a pixel at 4:2:0) and as much again
            // while it decodes, and its own state.
            decoder = plan.decodedWidth * plan.decodedHeight * 3 + 4 << 20
        }
        return decoder + resampler
    }

    // MARK: - Decoding

    package enum Failure: Error, Equatable {
        /// Not for this path: let libvips take it.
        case declined
        /// The kill switch was pulled.
        case cancelled
        /// A multi-scan JPEG began a scan past the limit.
        case tooManyScans
        /// libjpeg needed more memory than the limit.
        case overBudget
    }

    /// What a decode looks at to know whether to stop: the run's kill
    /// switch, and (for tests and fuzzing) a number of looks after which
    /// it stops as if the switch were pulled. Counts the looks: a decode
    /// that stopped midway shows it by how few it made. Used on the
    /// decoding thread only.
    package final class Watch {
        package let killSwitch: VipsKillSwitch
        package let stopAfter: Int?
        package private(set) var looks = 0

        package init(killSwitch: VipsKillSwitch, stopAfter: Int? = nil) {
            self.killSwitch = killSwitch
            self.stopAfter = stopAfter
        }

        fileprivate func shouldStop() -> Bool {
            looks += 1
            return killSwitch.isPulled || stopAfter.map { looks >= $0 } == true
        }
    }

    /// Decodes and resamples as `plan` says. libjpeg runs under a progress
    /// monitor that stops at the kill switch, past `maxScans` scans, and at
    /// its first warning, with `maxMemory` as its memory limit; PNG looks
    /// at the kill switch every 64 rows, WebP between slices of the file,
    /// AVIF before its one decode and every 64 rows after it.
    package static func decode(
        _ bytes: UnsafeRawBufferPointer,
        format: Format,
        plan: Plan,
        maxScans: Int = 0,
        maxMemory: Int = 0,
        killSwitch: VipsKillSwitch
    ) throws(Failure) -> RGBXImage {
        try decode(bytes, format: format, plan: plan, maxScans: maxScans, maxMemory: maxMemory, watch: Watch(killSwitch: killSwitch))
    }

    package static func decode(
        _ bytes: UnsafeRawBufferPointer,
        format: Format,
        plan: Plan,
        maxScans: Int = 0,
        maxMemory: Int = 0,
        watch: Watch
    ) throws(Failure) -> RGBXImage {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { throw .declined }
        var pixels: UnsafeMutablePointer<UInt8>?
        let context = Unmanaged.passUnretained(watch).toOpaque()
        let stop: @convention(c) (UnsafeMutableRawPointer?) -> Int32 = { context in
            guard let context else { return 0 }
            return Unmanaged<Watch>.fromOpaque(context).takeUnretainedValue().shouldStop() ? 1 : 0
        }
        var spec = plan.spec
        let status: Int32 = withExtendedLifetime(watch) {
            switch format {
            case .jpeg:
                var options = dr_jpeg_decode_options(scale_denom: Int32(clamping: plan.shrink), resample: spec,
                                                     max_scans: maxScans, max_memory: maxMemory,
                                                     cancelled: stop, context: context)
                return dr_jpeg_decode_resampled(base, bytes.count, &options, &pixels)
            case .png:
                guard plan.shrink == 1 else { return Int32(DR_DECLINED) }
                return dr_png_decode_resampled(base, bytes.count, &spec, &pixels, stop, context)
            case .webp:
                return dr_webp_decode_resampled(base, bytes.count, Int32(clamping: plan.shrink), &spec, &pixels, stop, context)
            case .avif:
                guard plan.shrink == 1 else { return Int32(DR_DECLINED) }
                return dr_avif_decode_resampled(base, bytes.count, &spec, &pixels, stop, context)
            }
        }
        guard status == Int32(DR_OK), let pixels else {
            if let pixels { dr_jpeg_free(pixels) }
            switch status {
            case Int32(DR_CANCELLED): throw .cancelled
            case Int32(DR_TOO_MANY_SCANS): throw .tooManyScans
            case Int32(DR_OVER_BUDGET): throw .overBudget
            default: throw .declined
            }
        }
        return RGBXImage(pixels: pixels, width: plan.cropWidth, height: plan.cropHeight)
    }

    /// Resamples RGB pixels already in memory as `plan` says (its shrink
    /// 1): what the decoders do after decoding, for comparing the kernels
    /// on the same input.
    package static func resample(rgb: [UInt8], plan: Plan) -> RGBXImage? {
        guard rgb.count == plan.decodedWidth * plan.decodedHeight * 3 else { return nil }
        var spec = plan.spec
        guard let resampler = dr_resampler_new(&spec) else { return nil }
        defer { dr_resampler_free(resampler) }
        // Rows must be readable 64 bytes past their end.
        let padded = rgb + [UInt8](repeating: 0, count: 64)
        return padded.withUnsafeBufferPointer { buffer -> RGBXImage? in
            let stride = plan.decodedWidth * 3
            for y in 0..<plan.decodedHeight { dr_resampler_push_row(resampler, buffer.baseAddress! + y * stride) }
            guard let pixels = dr_resampler_finish(resampler) else { return nil }
            return RGBXImage(pixels: pixels, width: plan.cropWidth, height: plan.cropHeight)
        }
    }
}

// MARK: - For the fuzzer

extension Thumbnail {
    /// An 8-bit RGB PNG around rows already filtered (a filter byte and
    /// `width` x 3 bytes each): compressed, with valid CRCs, so that
    /// mutations of the pixels and their filters reach the unfilter and
    /// the resampler. nil when `raw` is not `height` such rows.
    package static func png(filteredRows raw: [UInt8], width: Int, height: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: raw.count + raw.count / 8 + 1024)
        let length = raw.withUnsafeBufferPointer { rows in
            out.withUnsafeMutableBufferPointer { buffer in
                dr_png_encode_filtered(rows.baseAddress, rows.count, Int32(clamping: width), Int32(clamping: height), buffer.baseAddress, buffer.count)
            }
        }
        return length > 0 ? Array(out.prefix(length)) : nil
    }
}
