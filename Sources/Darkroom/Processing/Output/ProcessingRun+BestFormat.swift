import DarkroomImaging
import NIOCore

/// imgproxy Pro's `best` format: the image written in each candidate, the
/// smallest answered.
extension ProcessingRun {
    /// The side of the thumbnail the complexity is measured on.
    static let complexitySide = 256

    /// The smallest of the candidates' encodings of `image`.
    func encodeBest(_ image: VImage, sourceFormat: ImageFormat, source: ProcessedImage.SourceInfo) throws(DarkroomError) -> ProcessedImage {
        let output = options.output
        // Written several times: the pixels are computed once, into memory.
        try reserveMemory(MemoryCost.product(image.width, image.height, image.bands, image.bytesPerSample),
                          for: "the \(image.width) x \(image.height) image in memory, to be written in several formats")
        let pixels = try computingPixels(of: image, sourceFormat: sourceFormat) { pass throws(VipsError) in try image.inMemory(pass) }
        let lossless = try complexity(of: pixels) < output.bestComplexityThreshold
        var candidates = Self.bestCandidates(accepted: output.acceptedFormats, hasAlpha: pixels.hasAlpha, lossless: lossless)
        if output.bestMaxPixels > 0, MemoryCost.product(pixels.width, pixels.height) > output.bestMaxPixels {
            candidates = Array(candidates.prefix(1))
        }
        var best: (format: ImageFormat, bytes: ByteBuffer)?
        for candidate in candidates {
            try killSwitch.check()
            let bytes = try encode(pixels, as: candidate.format, sourceFormat: sourceFormat, lossless: candidate.lossless)
            if best == nil || bytes.readableBytes < best!.bytes.readableBytes { best = (candidate.format, bytes) }
        }
        guard let best else { throw DarkroomError(.cannotEncode, "no format to try for the best") }
        return ProcessedImage(bytes: best.bytes, format: best.format, width: pixels.width, height: pixels.height, source: source)
    }

    /// The formats `best` tries, the one expected to win first: AVIF and
    /// WebP only where the client names them, as imgproxy; JPEG only for
    /// images without alpha; lossless, PNG and WebP.
    static func bestCandidates(accepted: Set<ImageFormat>?, hasAlpha: Bool, lossless: Bool) -> [(format: ImageFormat, lossless: Bool)] {
        let takes = { (format: ImageFormat) in accepted?.contains(format) ?? false }
        if lossless {
            return (takes(.webp) ? [(.webp, true)] : []) + [(.png, true)]
        }
        var formats: [(format: ImageFormat, lossless: Bool)] = [.avif, .webp].filter(takes).map { ($0, false) }
        formats.append(hasAlpha ? (.png, true) : (.jpeg, false))
        return formats
    }

    /// Darkroom's measure of how busy an image is (imgproxy Pro does not
    /// publish its own): the mean luma gradient, |dx| + |dy| in steps of 0
    /// to 255, on a thumbnail of at most ``complexitySide`` pixels a side.
    /// Flat graphics and text measure below 3.
    func complexity(of image: VImage) throws(DarkroomError) -> Double {
        let scale = min(1, Double(Self.complexitySide) / Double(max(image.width, image.height)))
        let small = scale < 1 ? try vips("measuring complexity") { try image.resized(horizontal: scale, vertical: scale) } : image
        let grey = try computingPixels(of: small) { pass throws(VipsError) in try small.srgb8().withAlpha().pixelBytes(pass) }
        let (width, height) = (small.width, small.height)
        guard width > 1 || height > 1 else { return 0 }
        func luma(_ x: Int, _ y: Int) -> Int {
            let p = (y * width + x) * 4
            return (299 * Int(grey[p]) + 587 * Int(grey[p + 1]) + 114 * Int(grey[p + 2])) / 1000
        }
        var sum = 0, count = 0
        for y in 0..<height {
            for x in 0..<width {
                let here = luma(x, y)
                guard x + 1 < width, y + 1 < height else { continue }
                sum += abs(luma(x + 1, y) - here) + abs(luma(x, y + 1) - here)
                count += 1
            }
        }
        return count == 0 ? 0 : Double(sum) / Double(count)
    }
}
