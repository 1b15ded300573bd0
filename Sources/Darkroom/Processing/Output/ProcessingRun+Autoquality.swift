import DarkroomImaging
import NIOCore

/// imgproxy Pro's autoquality: a binary search over the quality range,
/// each step an encode (and for DSSIM a decode and a comparison).
extension ProcessingRun {
    func encodeChoosingQuality(_ image: VImage, as format: ImageFormat, sourceFormat: ImageFormat, autoquality: Autoquality, strip: Bool,
                               encoder: (Int) throws(DarkroomError) -> VImage.Encoder) throws(DarkroomError) -> ByteBuffer {
        if let problem = autoquality.problem { throw .invalidOption(problem) }
        // Written several times: the pixels are computed once, into memory.
        try reserveMemory(MemoryCost.product(image.width, image.height, image.bands, image.bytesPerSample),
                          for: "the \(image.width) x \(image.height) image in memory, to be written at several qualities")
        let pixels = try computingPixels(of: image, sourceFormat: sourceFormat) { pass throws(VipsError) in try image.inMemory(pass) }
        var written: [Int: ByteBuffer] = [:]
        func write(_ quality: Int) throws(DarkroomError) -> ByteBuffer {
            if let bytes = written[quality] { return bytes }
            try killSwitch.check()
            let encoder = try encoder(quality)
            let bytes = try writtenOnce(pixels, with: encoder, as: format, strip: strip, sourceFormat: sourceFormat)
            written[quality] = bytes
            return bytes
        }
        let range = autoquality.range(for: format)
        var (low, high) = (range.lowerBound, range.upperBound)
        switch autoquality.method {
        case .size:
            // The highest quality that fits; the lowest when none does.
            var fits: Int?
            while low <= high {
                let quality = (low + high) / 2
                if Double(try write(quality).readableBytes) <= autoquality.target {
                    fits = quality
                    low = quality + 1
                } else {
                    high = quality - 1
                }
            }
            return try write(fits ?? range.lowerBound)
        case .dssim:
            let reference = try luma(of: pixels)
            guard pixels.width > 2 * SSIM.radius, pixels.height > 2 * SSIM.radius else { return try write(range.upperBound) }
            // Each candidate decoded back whole (one at a time), and its luma.
            try reserveMemory(MemoryCost.product(pixels.width, pixels.height, 5),
                              for: "reading the \(pixels.width) x \(pixels.height) candidates back")
            // The lowest quality that meets the target; the highest when none does.
            var meets: Int?
            while low <= high {
                let quality = (low + high) / 2
                let bytes = try write(quality)
                let decoded = try luma(of: bytes, format: format)
                guard let dssim = SSIM.dissimilarity(reference, decoded, width: pixels.width, height: pixels.height) else { break }
                if abs(dssim - autoquality.target) <= autoquality.allowedError { return bytes }
                if dssim > autoquality.target {
                    low = quality + 1
                } else {
                    meets = quality
                    high = quality - 1
                }
            }
            return try write(meets ?? range.upperBound)
        }
    }

    /// The luma of an image in memory.
    private func luma(of image: VImage) throws(DarkroomError) -> [UInt8] {
        try reserveMemory(MemoryCost.product(image.width, image.height, 2), for: "comparing the \(image.width) x \(image.height) image")
        return try computingPixels(of: image) { pass throws(VipsError) in try image.srgb8().luma().pixelBytes(pass) }
    }

    /// The luma of an encoded candidate, decoded as a client would.
    private func luma(of bytes: ByteBuffer, format: ImageFormat) throws(DarkroomError) -> [UInt8] {
        let data = Array(bytes.readableBytesView)
        return try withRawBytes(of: data) { raw throws(DarkroomError) -> [UInt8] in
            do throws(VipsError) {
                let decoded = try VImage.load(raw, loader: format.loader, randomAccess: true)
                let luma = try decoded.srgb8().luma()
                return try killSwitch.vips.armed(luma) { pass throws(VipsError) in try luma.pixelBytes(pass) }
            } catch {
                throw DarkroomError(.processingFailed, "the \(format.rawValue.uppercased()) written to choose its quality could not be read back",
                                    underlying: error.message)
            }
        }
    }
}
