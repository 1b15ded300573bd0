internal import CVips

extension VImage {
    /// libvips' name for the colourspace: "srgb", "cmyk", "b-w", ...
    package var interpretationName: String {
        darkroom_vips_interpretation_nick(pointer).map { String(cString: $0) } ?? "unknown"
    }

    /// libvips' name for the sample format: "uchar", "ushort", "float", ...
    package var sampleFormatName: String {
        darkroom_vips_format_nick(pointer).map { String(cString: $0) } ?? "unknown"
    }

    /// The names of the image's metadata fields ("exif-ifd0-Make", ...).
    package var fieldNames: [String] {
        guard let names = darkroom_vips_field_names(pointer) else { return [] }
        defer { g_strfreev(names) }
        var result: [String] = []
        var index = 0
        while let name = names[index] {
            result.append(String(cString: name))
            index += 1
        }
        return result
    }

    /// A metadata blob ("iptc-data", "xmp-data") as bytes; nil when absent.
    package func blob(_ name: String) -> [UInt8]? {
        var length = 0
        guard let data = darkroom_vips_blob(pointer, name, &length) else { return nil }
        return [UInt8](UnsafeRawBufferPointer(start: data, count: length))
    }

    /// The smallest value of the last band: the most transparent pixel's
    /// alpha, for an image with alpha. Computes every pixel.
    package func lastBandMinimum(_ pass: PixelPass) throws(VipsError) -> Double {
        var minimum = 0.0
        guard darkroom_vips_min_last_band(pointer, &minimum) == 0 else { throw VipsError.fromBuffer(operation: "min") }
        return minimum
    }

    /// The centre libvips' attention strategy picks for a `width` x
    /// `height` crop.
    package func attentionCentre(width: Int, height: Int, through pass: PixelPass) throws(VipsError) -> (x: Int, y: Int) {
        var x: Int32 = 0, y: Int32 = 0
        guard darkroom_vips_attention(pointer, Int32(width), Int32(height), &x, &y) == 0 else {
            throw VipsError.fromBuffer(operation: "smartcrop")
        }
        return (Int(x), Int(y))
    }

    /// libexif's title for an EXIF tag by its name and IFD (0: the image,
    /// 1: the thumbnail, 2: EXIF, 3: GPS, 4: interoperability), as libvips
    /// names its fields "exif-ifd{N}-{name}"; nil for a tag libexif does
    /// not know.
    package static func exifTitle(name: String, ifd: Int) -> String? {
        guard (0...4).contains(ifd) else { return nil }
        return darkroom_exif_title(name, Int32(ifd)).map { String(cString: $0) }
    }

    /// 8-bit luma of an 8-bit sRGB image with 3 or 4 bands.
    package func luma() throws(VipsError) -> VImage {
        try VImage.make("luma") { darkroom_vips_luma(pointer, $0) }
    }
}
