internal import CImageFacts
internal import CThumbnail
internal import CVips

/// 8-bit RGB pixels, four bytes each (the fourth unused), owned and freed
/// by this object. Not shared between threads.
package final class RGBXImage {
    private let pixels: UnsafeMutablePointer<UInt8>
    package let width: Int
    package let height: Int

    /// Takes `pixels`, allocated with malloc, to free them.
    init(pixels: UnsafeMutablePointer<UInt8>, width: Int, height: Int) {
        self.pixels = pixels
        self.width = width
        self.height = height
    }

    deinit { dr_jpeg_free(pixels) }

    /// The pixels as RGB, three bytes each, row after row.
    package func rgbBytes() -> [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(width * height * 3)
        for i in 0..<(width * height) {
            bytes.append(pixels[i * 4])
            bytes.append(pixels[i * 4 + 1])
            bytes.append(pixels[i * 4 + 2])
        }
        return bytes
    }

    /// Multiplies every pixel by a 3x3 matrix (row-major), rounding and
    /// clipping as the in-memory libvips step does (16.16 fixed point).
    package func recombine(_ matrix: [Double]) {
        precondition(matrix.count == 9, "a 3x3 matrix has nine entries")
        dr_recombine(pixels, width * height, 4, matrix)
    }

    /// Encodes the pixels as a baseline JPEG without metadata, and hands
    /// the encoder's buffer to `body`.
    package func encodedJPEG<R>(quality: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard (1...100).contains(quality) else { return nil }
        var output: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard dr_jpeg_encode(pixels, Int32(width), Int32(height), Int32(quality), &output, &length) == Int32(DR_OK),
              let output
        else { return nil }
        defer { dr_jpeg_free(output) }
        return body(UnsafeRawBufferPointer(start: output, count: length))
    }

    /// Runs `body` with the pixels as a libvips image of three bands in
    /// sRGB, for a libvips saver; nil when libvips cannot make that image.
    /// The image reads these pixels in place, so it must not outlive
    /// `body`; nothing here keeps it.
    package func withVipsImage<R, Failure: Error>(_ body: (VImage) throws(Failure) -> R) throws(Failure) -> R? {
        try withExtendedLifetime(self) { () throws(Failure) -> R? in
            guard (try? VipsRuntime.start()) != nil,
                  let rgbx = try? VImage.make("new_from_memory", {
                      darkroom_vips_wrap_memory(pixels, width * height * 4, Int32(width), Int32(height), 4, $0)
                  }),
                  let rgb = try? VImage.make("extract_band", { darkroom_vips_extract_bands(rgbx.pointer, $0, 0, 3) })
            else { return nil }
            return try body(rgb)
        }
    }
}
