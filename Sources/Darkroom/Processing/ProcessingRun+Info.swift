import DarkroomImaging
import Foundation

extension ProcessingRun {
    /// The side of the thumbnail the placeholders and the dominant colour
    /// are computed from: ThumbHash takes at most 100 x 100.
    static let infoThumbnailSide = 100

    /// What the image is: its header, EXIF summary, and placeholders made
    /// from a small upright thumbnail (decoded with shrink-on-load). The
    /// limits apply as for processing.
    func inspect(includeGPS: Bool) throws(DarkroomError) -> ImageInfo {
        try Self.startLibvips()
        let format = try checkedFormat()
        try killSwitch.check()
        if format == .svg { return try svgInspect(includeGPS: includeGPS) }
        return try withRawBytes(of: data) { raw throws(DarkroomError) in
            _ = try checkedJPEGStructure(raw, format: format)
            let header = try load(raw, format: format, shrink: 1)
            let pixels = header.width.multipliedReportingOverflow(by: header.height)
            if pixels.overflow || pixels.partialValue > options.limits.maxSourcePixels {
                throw DarkroomError(.tooManyPixels, "the image is \(header.width) x \(header.height) pixels, over the limit of \(options.limits.maxSourcePixels) pixels")
            }
            let orientation = self.orientation(of: raw, format: format, header: header)
            let swaps = orientation >= 5
            let upright = swaps ? (width: header.height, height: header.width) : (width: header.width, height: header.height)
            let exif = EXIFSummary(field: header.field, includeGPS: includeGPS)

            // A thumbnail of at most 100 x 100, upright, 8-bit sRGB with alpha.
            let side = Self.infoThumbnailSide
            let fit = Resize(width: side, height: side)
            let plan = ShrinkOnLoad.plan(operations: [.resize(fit)], format: format, width: upright.width, height: upright.height)
            let rotates = orientation != 1
            try checkWholeDecode(of: header, format: format, shrink: plan.factor, randomAccess: rotates)
            var image = plan.factor > 1 || rotates ? try load(raw, format: format, shrink: plan.factor, randomAccess: rotates) : header
            try killSwitch.check()
            image = try inSRGB(image)
            image = try vips("rotating by EXIF orientation") { try image.autoRotated(orientation: orientation) }
            let scale = min(Double(side) / Double(image.width), Double(side) / Double(image.height), 1)
            if scale < 1 {
                let (width, height) = (max(1, Int((Double(image.width) * scale).rounded())), max(1, Int((Double(image.height) * scale).rounded())))
                let source = image
                image = try vips("resize") {
                    try source.resized(horizontal: Double(width) / Double(source.width), vertical: Double(height) / Double(source.height))
                }
            }
            let thumbnail = image
            let rgba = try computingPixels(of: thumbnail) { () throws(VipsError) in try thumbnail.withAlpha().pixelBytes() }
            let (width, height) = (thumbnail.width, thumbnail.height)
            return ImageInfo(format: format, width: upright.width, height: upright.height, orientation: orientation,
                             frames: max(1, header.pageCount), exif: exif,
                             dominantColour: Self.dominantColour(rgba),
                             blurHash: BlurHash.encode(width: width, height: height, bands: 4, pixels: rgba),
                             thumbHash: Data(ThumbHash.encode(width: min(width, side), height: min(height, side), rgba: rgba)).base64EncodedString())
        }
    }

    /// The mean colour of the most common bin of 16 x 16 x 16, over the
    /// pixels that are not mostly transparent (all of them if none is).
    static func dominantColour(_ rgba: [UInt8]) -> String {
        var counts = [Int](repeating: 0, count: 4096), sums = [(Int, Int, Int)](repeating: (0, 0, 0), count: 4096)
        let opaque = stride(from: 0, to: rgba.count, by: 4).contains { rgba[$0 + 3] >= 128 }
        for p in stride(from: 0, to: rgba.count, by: 4) where !opaque || rgba[p + 3] >= 128 {
            let (r, g, b) = (Int(rgba[p]), Int(rgba[p + 1]), Int(rgba[p + 2]))
            let bin = (r >> 4) << 8 | (g >> 4) << 4 | b >> 4
            counts[bin] += 1
            sums[bin] = (sums[bin].0 + r, sums[bin].1 + g, sums[bin].2 + b)
        }
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return "000000" }
        let n = counts[best]
        return [sums[best].0 / n, sums[best].1 / n, sums[best].2 / n].map { String(format: "%02x", $0) }.joined()
    }
}
