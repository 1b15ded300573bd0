internal import CVips

/// Uncompressed 8-bit pixels, row by row: for tests and tools that need to
/// make an image from known values or read values back.
package struct RawPixels: Sendable, Equatable {
    package var width: Int
    package var height: Int
    package var bands: Int
    package var bytes: [UInt8]

    package init(width: Int, height: Int, bands: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * bands, "pixel count does not match the size")
        self.width = width
        self.height = height
        self.bands = bands
        self.bytes = bytes
    }

    /// An image of one colour.
    package init(width: Int, height: Int, filledWith pixel: [UInt8]) {
        self.init(width: width, height: height, bands: pixel.count,
                  bytes: Array((0..<width * height).map { _ in pixel }.joined()))
    }

    /// The values of the pixel at (x, y), one per band.
    package func pixel(x: Int, y: Int) -> [UInt8] {
        let start = (y * width + x) * bands
        return Array(bytes[start..<start + bands])
    }

    /// Encodes the pixels as PNG.
    package func pngData() throws(VipsError) -> [UInt8] {
        try encoded(.png)
    }

    /// The pixels as an uncompressed PNG, for pixels from elsewhere to be
    /// read again as a source.
    package func storedPNG() throws(VipsError) -> [UInt8] {
        try VipsRuntime.start()
        let image = try withRawBytes(of: bytes) { raw throws(VipsError) in
            try VImage.make("new_from_memory") {
                darkroom_vips_from_memory(raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands), $0)
            }
        }
        return try image.storedPNG(PixelPass())
    }

    /// Encodes the pixels with `encoder`.
    package func encoded(_ encoder: VImage.Encoder) throws(VipsError) -> [UInt8] {
        try VipsRuntime.start()
        let image = try withRawBytes(of: bytes) { raw throws(VipsError) in
            try VImage.make("new_from_memory") {
                darkroom_vips_from_memory(raw.baseAddress, raw.count, Int32(width), Int32(height), Int32(bands), $0)
            }
        }
        return try image.encoded(encoder, through: PixelPass())
    }

    /// Decodes an encoded image (any loader Darkroom allows) to pixels,
    /// exactly as stored: no rotation, no colour conversion. An animation's
    /// first `pages` frames (-1: all) come stacked top to bottom.
    package static func decode(_ data: [UInt8], loader: VImage.Loader, pages: Int = 1) throws(VipsError) -> RawPixels {
        try VipsRuntime.start()
        return try withRawBytes(of: data) { raw throws(VipsError) in
            let image = try VImage.load(raw, loader: loader, pages: pages)
            guard darkroom_vips_band_format(image.pointer) == Int32(VIPS_FORMAT_UCHAR.rawValue) else {
                throw VipsError(operation: "write_to_memory", message: "not 8-bit pixels")
            }
            var size = 0
            guard let memory = vips_image_write_to_memory(image.pointer, &size) else {
                throw VipsError.fromBuffer(operation: "write_to_memory")
            }
            defer { g_free(memory) }
            let bytes = [UInt8](UnsafeRawBufferPointer(start: memory, count: size))
            return RawPixels(width: image.width, height: image.height, bands: image.bands, bytes: bytes)
        }
    }
}

extension VipsRuntime {
    /// What libvips' own detection and loaders do with `data`, whatever
    /// Darkroom would do: the loader it picks, and whether that loader runs.
    package enum LoaderProbe: Equatable, Sendable {
        case loads(loader: String)
        case refused(loader: String?, message: String)
    }

    package static func probe(_ data: [UInt8]) throws(VipsError) -> LoaderProbe {
        try start()
        return data.withUnsafeBytes { raw in
            var loader: UnsafePointer<CChar>?
            let status = darkroom_vips_probe_load(raw.baseAddress, raw.count, &loader)
            let name = loader.map { String(cString: $0) }
            if status == 0 { return .loads(loader: name ?? "unknown") }
            return .refused(loader: name, message: VipsError.fromBuffer(operation: "load").message)
        }
    }
}
