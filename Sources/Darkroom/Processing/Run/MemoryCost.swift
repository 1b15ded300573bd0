/// What the decoders, steps and encoders behind a run hold in memory, per
/// pixel, as measured with libvips 8.14 (libheif 1.15 with libaom 3.6 and
/// dav1d, libwebp 1.2, cgif with libimagequant, libjxl 0.7) on 1 to 67
/// megapixel images: the peak resident size of one run, less the same
/// run's at a few pixels. docs/security.md has the table.
///
/// Each figure is the most seen, rounded up, so that an estimate is never
/// below what the run takes.
package enum MemoryCost {
    /// Bytes a pixel that a decoder holding the whole image takes, besides
    /// libvips' copy of the pixels it hands on.
    static func wholeDecode(_ format: ImageFormat, bands: Int, bytesPerSample: Int, heif: HEIFStructure.Coding?) -> Int {
        let pixel = max(3, bands) * bytesPerSample
        switch format {
        case .avif, .heic:
            // libheif's planes, its interleaved RGB(A) and libvips' copy:
            // 6.5 bytes a pixel for 8-bit 4:2:0 RGB, 12.4 for 4:4:4 (with
            // or without alpha); twice that past 8 bits.
            let coding = heif ?? .worst
            let planes = (coding.fullChroma ? 3 : 2) + (coding.highBitDepth ? 3 : 0)
            return 2 * pixel + planes * (coding.highBitDepth ? 2 : 1) + 1
        case .webp:
            // libwebp's RGBA and libvips' copy: 7.5 for RGB or RGBA.
            return 2 * max(4, pixel)
        case .gif:
            // The frame's indices and its RGBA: 4.5.
            return max(4, pixel) + 1
        case .jxl:
            // libjxl's float planes, then libvips' copy.
            return 4 * max(3, bands) + pixel
        case .jpeg, .png, .tiff:
            return pixel
        case .bmp, .ico:
            // Never read.
            return pixel
        case .svg, .pdf, .video:
            // Rendered into a PNG of the pixels first, which is then read.
            return pixel
        }
    }

    /// Bytes an encoder holds to write a `width` x `height` image of
    /// `frames` frames, besides the pixels the steps hand it (which libvips
    /// computes a strip at a time).
    static func encode(_ format: ImageFormat, width: Int, height: Int, frames: Int, progressive: Bool) -> Int {
        let pixels = Self.product(width, height, frames)
        switch format {
        case .jpeg:
            // A progressive JPEG keeps every coefficient until the last
            // scan: 2.9 bytes a pixel. A baseline one writes rows as they come.
            return progressive ? Self.product(pixels, 3) : 0
        case .png, .tiff:
            // Written row by row.
            return 0
        case .webp:
            // Measured on noise, the worst picture (a flat one takes 2.6):
            // 19.9 bytes a pixel at 4.2 megapixels and 20.2 at 9, lossy;
            // lossless as much. A photo's answer takes far less, but the
            // estimate is made before its pixels are known.
            return Self.product(pixels, 21)
        case .gif:
            // The frame as RGBA, its indices and libimagequant's histogram:
            // 22 bytes a pixel up to 4 MP, 9.6 at 67 MP.
            return min(Self.product(pixels, 24), Self.product(pixels, 12) &+ 50 << 20)
        case .avif, .heic:
            // x265 (HEIC) took 29 bytes a pixel at 4 MP, libaom at speed 8 as
            // much as at speed 7. libaom: 30 bytes a pixel up to about 3.2
            // megapixels; past that it takes a slower mode that holds 86 to
            // 98 (465 MB for 2048 x 2048, 1.5 GB for 4096 x 4096).
            return Self.product(pixels, pixels <= 3_200_000 ? 32 : 100)
        case .jxl:
            // libjxl at effort 4: 44 bytes a pixel.
            return Self.product(pixels, 46)
        case .bmp, .ico:
            // The pixels in memory, the file they become and its copy.
            return Self.product(pixels, 12)
        case .svg, .pdf, .video:
            // Never written from pixels.
            return 0
        }
    }

    /// The product, or Int.max past it: sizes come from headers.
    package static func product(_ values: Int...) -> Int {
        var result = 1
        for value in values {
            let (next, overflow) = result.multipliedReportingOverflow(by: max(0, value))
            if overflow { return .max }
            result = next
        }
        return result
    }
}

/// What one run holds, step by step: each whole decode, each step that
/// keeps its image in memory and the encoder's working set are added as
/// they are planned, and refused where the sum passes
/// ``ImageLimits/maxDecodeMemory``, before anything is allocated.
final class MemoryLedger {
    private(set) var held = 0

    /// Adds `bytes`, or throws if the run would then hold more than `budget`.
    func reserve(_ bytes: Int, budget: Int, for what: String) throws(DarkroomError) {
        try check(bytes, budget: budget, for: what)
        held += bytes
    }

    /// Gives back what was reserved for something that has ended (a child).
    func release(_ bytes: Int) {
        held = max(0, held - bytes)
    }

    /// Throws if `bytes` more would take the run past `budget`; holds nothing.
    func check(_ bytes: Int, budget: Int, for what: String) throws(DarkroomError) {
        let (total, overflow) = held.addingReportingOverflow(bytes)
        guard overflow || total > budget else { return }
        let before = held > 0 ? " (\(ProcessingRun.mebibytes(overflow ? .max : total)) with what the run holds already)" : ""
        throw DarkroomError(.tooMuchMemory, "processing would hold \(ProcessingRun.mebibytes(bytes)) for \(what)\(before), over the limit of \(ProcessingRun.mebibytes(budget)) a request")
    }
}
