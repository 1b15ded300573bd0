import DarkroomImaging
import Foundation

extension ProcessingRun {
    /// The side of the thumbnail the placeholders and the dominant colour
    /// are computed from: ThumbHash takes at most 100 x 100.
    static let infoThumbnailSide = 100

    /// What the image is: its header, EXIF summary, and placeholders made
    /// from a small upright thumbnail (decoded with shrink-on-load), with
    /// what `asked` adds. The limits apply as for processing.
    func inspect(includeGPS: Bool, asked: InfoOptions = InfoOptions()) throws(DarkroomError) -> ImageInfo {
        if let problem = asked.problem { throw .invalidOption(problem) }
        try Self.startLibvips()
        let format = try checkedFormat()
        try killSwitch.check()
        if let drawn = Self.drawnSource(for: format) { return try drawn.inspect(self, includeGPS: includeGPS, asked: asked) }
        return try withRawBytes(of: data) { raw throws(DarkroomError) in
            _ = try checkedJPEGStructure(raw, format: format)
            var header = try load(raw, format: format, shrink: 1)
            let pages = max(1, header.pageCount)
            if asked.page > 0 {
                guard [.gif, .webp, .tiff].contains(format), asked.page < pages else {
                    throw .invalidOption("page \(asked.page) was asked of a source with \(pages) page\(pages == 1 ? "" : "s") (counted from 0)")
                }
                header = try load(raw, format: format, shrink: 1, page: asked.page)
            }
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
            var image = plan.factor > 1 || rotates ? try load(raw, format: format, shrink: plan.factor, randomAccess: rotates, page: asked.page) : header
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
            // In memory: the source is read once, in order, and the hashes
            // and the smart crop read the thumbnail again.
            let thumbnail = try computingPixels(of: image) { pass throws(VipsError) in try image.inMemory(pass) }
            let rgba = try computingPixels(of: thumbnail) { pass throws(VipsError) in try thumbnail.withAlpha().pixelBytes(pass) }
            let (width, height) = (thumbnail.width, thumbnail.height)
            let thumbHash = ThumbHash.encode(width: min(width, side), height: min(height, side), rgba: rgba)
            var info = ImageInfo(format: format, width: upright.width, height: upright.height, orientation: orientation,
                                 frames: pages, exif: exif,
                                 dominantColour: Self.dominantColour(rgba),
                                 blurHash: BlurHash.encode(width: width, height: height, bands: 4, pixels: rgba,
                                                           componentsX: asked.blurHashComponents.x, componentsY: asked.blurHashComponents.y),
                                 thumbHash: Data(thumbHash).base64EncodedString())
            try describeHeader(header, asked: asked, includeGPS: includeGPS, into: &info)
            if asked.checkTransparency {
                info.hasTransparency = header.hasAlpha ? try hasTransparentPixel(raw, format: format, header: header, page: asked.page) : false
            }
            if asked.thumbHashHex { info.thumbHashHex = thumbHash.map { String(format: "%02X", $0) }.joined() }
            if asked.paletteColours > 0 { info.palette = Palette.colours(rgba, count: asked.paletteColours) }
            if asked.average { info.average = Palette.average(rgba, ignoringTransparent: asked.averageIgnoresTransparent) }
            if asked.dominantColours { info.dominantColours = DominantColours.swatches(rgba, buildMissed: asked.buildMissedColours) }
            if asked.perceptualHash { info.perceptualHash = try perceptualHash(of: thumbnail) }
            // One search serves both `do` and an object-gravity crop.
            let faces = asked.detectObjects || asked.crop?.gravity.kind == .objects
                ? try relativeObjects(raw, format: format, header: header, orientation: orientation, upright: upright, page: asked.page)
                : []
            if let crop = asked.crop {
                info.crop = try relativeCrop(crop, position: asked.objectsPosition, upright: upright, thumbnail: thumbnail, faces: faces)
            }
            if asked.detectObjects { info.objects = faces }
            return info
        }
    }

    /// The faces in the upright image, as fractions of it: searched on a
    /// copy decoded near the detection size.
    private func relativeObjects(_ raw: UnsafeRawBufferPointer, format: ImageFormat, header: VImage, orientation: Int,
                                 upright: (width: Int, height: Int), page: Int) throws(DarkroomError) -> [DetectedObject] {
        let side = options.objectDetection.side
        let plan = ShrinkOnLoad.plan(operations: [.resize(Resize(width: side, height: side))], format: format, width: upright.width, height: upright.height)
        let rotates = orientation != 1
        try checkWholeDecode(of: header, format: format, shrink: plan.factor, randomAccess: rotates)
        var image = try load(raw, format: format, shrink: plan.factor, randomAccess: rotates, page: page)
        image = try inSRGB(image)
        image = try vips("rotating by EXIF orientation") { try image.autoRotated(orientation: orientation) }
        let pixels = try materialised(image, for: "looking for objects in")
        let (width, height) = (Double(pixels.width), Double(pixels.height))
        return try objects(in: pixels, classes: .all).map { $0.object.scaled(horizontal: 1 / width, vertical: 1 / height) }
    }

    /// What the header tells, as `asked`: EXIF fields, IPTC, XMP,
    /// colourspace, bands, sample format, pages, alpha.
    private func describeHeader(_ header: VImage, asked: InfoOptions, includeGPS: Bool, into info: inout ImageInfo) throws(DarkroomError) {
        if asked.exif { info.exifFields = Self.exifFields(of: header, canonicalNames: asked.exifCanonicalNames, includeGPS: includeGPS) }
        if asked.iptc, let block = header.blob("iptc-data") {
            let (iptc, photoshop) = IPTC.read(block)
            if !iptc.isEmpty { info.iptc = iptc }
            if !photoshop.isEmpty { info.photoshop = photoshop }
        }
        if asked.xmp, let packet = header.blob("xmp-data") {
            let xmp = XMP.read(packet)
            if !xmp.isEmpty { info.xmp = xmp }
        }
        if asked.colourspace { info.colourspace = header.interpretationName }
        if asked.bands { info.bands = header.bands }
        if asked.sampleFormat { info.sampleFormat = header.sampleFormatName }
        if asked.pagesNumber { info.pagesNumber = max(1, header.pageCount) }
        if asked.alpha || asked.checkTransparency { info.hasAlpha = header.hasAlpha }
    }

    /// Every EXIF field libvips read ("exif-ifd{N}-{tag}"), by libexif's
    /// title or the tag's own name, with its readable value. GPS fields
    /// only with `includeGPS`: a photo's place is personal.
    static func exifFields(of header: VImage, canonicalNames: Bool, includeGPS: Bool) -> [String: String] {
        var fields: [String: String] = [:]
        for name in header.fieldNames where name.hasPrefix("exif-ifd") {
            let rest = name.dropFirst("exif-ifd".count)
            guard let dash = rest.firstIndex(of: "-"), let ifd = Int(rest[..<dash]) else { continue }
            if ifd == 3, !includeGPS { continue }
            let tag = String(rest[rest.index(after: dash)...])
            guard let value = header.field(name).flatMap(EXIFSummary.readable) else { continue }
            let key = canonicalNames ? tag : VImage.exifTitle(name: tag, ifd: ifd) ?? tag
            fields[key] = fields[key] ?? value
        }
        return fields
    }

    /// Whether any pixel is less than opaque: the whole image is decoded,
    /// within the same limits as processing.
    private func hasTransparentPixel(_ raw: UnsafeRawBufferPointer, format: ImageFormat, header: VImage, page: Int) throws(DarkroomError) -> Bool {
        try checkWholeDecode(of: header, format: format, shrink: 1, randomAccess: false)
        let image = try load(raw, format: format, shrink: 1, page: page)
        let opaque: Double = switch image.sampleFormatName {
        case "ushort": 65535
        case "float", "double": 1
        default: 255
        }
        return try computingPixels(of: image) { pass throws(VipsError) in try image.lastBandMinimum(pass) } < opaque
    }

    /// The hash of the thumbnail as 64 x 64 grey.
    private func perceptualHash(of thumbnail: VImage) throws(DarkroomError) -> String {
        let side = Double(PerceptualHash.side)
        let square = try vips("resize") {
            try thumbnail.resized(horizontal: side / Double(thumbnail.width), vertical: side / Double(thumbnail.height))
        }
        guard square.width == PerceptualHash.side, square.height == PerceptualHash.side else {
            throw DarkroomError(.processingFailed, "the perceptual hash's \(square.width) x \(square.height) image is not \(PerceptualHash.side) x \(PerceptualHash.side)")
        }
        let rgba = try computingPixels(of: square) { pass throws(VipsError) in try square.withAlpha().pixelBytes(pass) }
        return PerceptualHash.hash(grey: PerceptualHash.grey(rgba: rgba))
    }

    /// Where `crop` falls on the upright image, as fractions; smart gravity
    /// asks libvips' attention strategy on the thumbnail, and object
    /// gravity places the cut around `faces` (fractions of the upright
    /// image) as processing does, falling back as it does.
    private func relativeCrop(_ crop: InfoCrop, position: ObjectsPosition, upright: (width: Int, height: Int), thumbnail: VImage,
                              faces: [DetectedObject]) throws(DarkroomError) -> ImageInfo.RelativeRect {
        func side(_ asked: Double, of whole: Int) -> Int {
            asked == 0 ? whole : asked < 1 ? max(1, Gravity.scaleToEven(whole, asked)) : min(whole, Int(asked))
        }
        let (width, height) = (side(crop.width, of: upright.width), side(crop.height, of: upright.height))
        let (w, h) = (Double(upright.width), Double(upright.height))
        if crop.gravity.kind == .objects {
            let weighted = try faceWeight(in: crop.gravity.objectClasses).map { weight in
                faces.map { ObjectFocus.Weighted(object: $0.scaled(horizontal: w, vertical: h), weight: weight) }
            } ?? []
            let focus = ObjectFocus(objects: weighted, mode: options.objectDetection.gravityMode, position: position)
            guard let (left, top) = focus.placement(image: upright, cut: (width, height)) else {
                let fallback = InfoCrop(width: crop.width, height: crop.height, gravity: options.objectDetection.fallbackToSmart ? .smart : .centre)
                return try relativeCrop(fallback, position: position, upright: upright, thumbnail: thumbnail, faces: [])
            }
            return ImageInfo.RelativeRect(left: Double(left) / w, top: Double(top) / h, width: Double(width) / w, height: Double(height) / h)
        }
        if crop.gravity.kind == .smart {
            let scale = Double(thumbnail.width) / w
            let inner = (width: max(1, min(thumbnail.width, Int((Double(width) * scale).rounded()))),
                         height: max(1, min(thumbnail.height, Int((Double(height) * scale).rounded()))))
            let centre = try computingPixels(of: thumbnail) { pass throws(VipsError) in
                try thumbnail.attentionCentre(width: inner.width, height: inner.height, through: pass)
            }
            let left = max(0, min(thumbnail.width - inner.width, centre.x - inner.width / 2))
            let top = max(0, min(thumbnail.height - inner.height, centre.y - inner.height / 2))
            return ImageInfo.RelativeRect(left: Double(left) / Double(thumbnail.width), top: Double(top) / Double(thumbnail.height),
                                          width: Double(width) / w, height: Double(height) / h)
        }
        let (left, top) = crop.gravity.placement(outer: upright, inner: (width, height))
        return ImageInfo.RelativeRect(left: Double(left) / w, top: Double(top) / h, width: Double(width) / w, height: Double(height) / h)
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
