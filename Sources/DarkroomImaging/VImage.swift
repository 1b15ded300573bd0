internal import CVips

/// One libvips image, owned: released when the last Swift reference goes.
///
/// Not `Sendable`: an image is created, used and released inside one
/// blocking call, on one thread, and never crosses an `await`.
package final class VImage {
    let pointer: UnsafeMutablePointer<CVips.VipsImage>

    init(taking pointer: UnsafeMutablePointer<CVips.VipsImage>) {
        self.pointer = pointer
    }

    deinit {
        darkroom_vips_unref(pointer)
    }

    /// Runs a libvips call that writes a new image to its out-parameter.
    static func make(
        _ operation: String,
        _ body: (UnsafeMutablePointer<UnsafeMutablePointer<CVips.VipsImage>?>) -> Int32
    ) throws(VipsError) -> VImage {
        var out: UnsafeMutablePointer<CVips.VipsImage>?
        guard body(&out) == 0, let out else {
            throw VipsError.fromBuffer(operation: operation)
        }
        return VImage(taking: out)
    }

    package var width: Int { Int(darkroom_vips_width(pointer)) }
    package var height: Int { Int(darkroom_vips_height(pointer)) }
    package var bands: Int { Int(darkroom_vips_bands(pointer)) }
    package var hasAlpha: Bool { darkroom_vips_has_alpha(pointer) != 0 }

    /// The EXIF orientation, 1...8 (1 when there is none).
    package var orientation: Int { Int(darkroom_vips_orientation(pointer)) }

    /// Frames in the image: more than 1 for an animated GIF or WebP.
    package var pageCount: Int { Int(darkroom_vips_page_count(pointer)) }

    /// A metadata field as libvips gives it in text, such as an EXIF field
    /// ("exif-ifd0-Make"): "Canon (Canon, ASCII, 6 components, 6 bytes)".
    package func field(_ name: String) -> String? {
        darkroom_vips_field_string(pointer, name).map { String(cString: $0) }
    }

    /// This image with an opaque alpha band when it has none.
    package func withAlpha() throws(VipsError) -> VImage {
        try VImage.make("addalpha") { darkroom_vips_with_alpha(pointer, $0) }
    }

    /// The computed pixels, row by row, band by band; 8-bit images only.
    package func pixelBytes(_ pass: PixelPass) throws(VipsError) -> [UInt8] {
        guard darkroom_vips_band_format(pointer) == Int32(VIPS_FORMAT_UCHAR.rawValue) else {
            throw VipsError(operation: "write_to_memory", message: "not 8-bit pixels")
        }
        var size = 0
        guard let memory = darkroom_vips_pixels(pointer, &size) else { throw VipsError.fromBuffer(operation: "write_to_memory") }
        defer { g_free(memory) }
        return [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
    }

    /// Whether the EXIF orientation swaps width and height (5...8).
    package var orientationSwapsAxes: Bool { (5...8).contains(orientation) }

    /// Whether pixels are already 8-bit sRGB (or sRGB with alpha).
    package var isSRGB8: Bool {
        darkroom_vips_interpretation(pointer) == Int32(VIPS_INTERPRETATION_sRGB.rawValue)
            && darkroom_vips_band_format(pointer) == Int32(VIPS_FORMAT_UCHAR.rawValue)
            && (bands == 3 || bands == 4)
    }

    package var hasICCProfile: Bool { darkroom_vips_has_icc(pointer) != 0 }
    /// Bytes a band of a pixel takes (1 for 8-bit, 2 for 16-bit...).
    package var bytesPerSample: Int { Int(darkroom_vips_bytes_per_sample(pointer)) }
    /// Whether the loader found the file interlaced (an Adam7 PNG).
    package var isInterlaced: Bool { darkroom_vips_interlaced(pointer) != 0 }
    /// The embedded ICC profile's bytes, if there is one.
    package var iccProfile: [UInt8]? {
        var length = 0
        guard let profile = darkroom_vips_icc_profile(pointer, &length) else { return nil }
        return [UInt8](UnsafeRawBufferPointer(start: profile, count: length))
    }

    /// An embedded profile other than sRGB, by the rule both engines follow
    /// (``SourceFacts/isSRGB(profile:)``): the pixels need a transform.
    package var hasForeignProfile: Bool {
        var length = 0
        guard let profile = darkroom_vips_icc_profile(pointer, &length) else { return false }
        return !SourceFacts.isSRGB(profile: UnsafeRawBufferPointer(start: profile, count: length))
    }
}
