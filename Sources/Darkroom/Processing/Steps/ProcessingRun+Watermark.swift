import DarkroomImaging

extension ProcessingRun {
    /// The largest text watermark, in pixels: what markup may ask for
    /// (a font of any size, any spacing) is measured before it is drawn.
    static let maxTextPixels = 16_000_000

    /// The largest font, spacing or rise markup may ask, in pixels. A font
    /// made at an absurd size leaves the font library in a state in which
    /// no later text is drawn, for every request: sizes are refused before
    /// any font is made at them.
    static let maxTextFontPixels = 1000.0

    /// The watermark over the image, as imgproxy lays it: with a scale, fit
    /// (enlarged if need be) into that share of the image's width and
    /// height, else into Pro's `wms` box; turned and shadowed as Pro's
    /// `wmr` and `wmsh`; placed by its gravity, where it may hang over the
    /// edges, or tiled with the offsets as the space between tiles; at its
    /// opacity. Pixel offsets and sizes are CSS pixels at `offsetScale`.
    func watermark(_ image: VImage, _ watermark: Watermark, offsetScale: Double) throws(DarkroomError) -> VImage {
        try check(watermark)
        if watermark.opacity == 0 { return image }
        var mark = switch watermark.content {
        case .image(let image): try loadWatermark(image)
        case .text(let text): try textMark(text, width: image.width, scale: offsetScale)
        }
        let box: (width: Int, height: Int)? = if watermark.scale > 0 {
            (max(1, Gravity.scaleToEven(image.width, watermark.scale)), max(1, Gravity.scaleToEven(image.height, watermark.scale)))
        } else if watermark.fitWidth > 0 || watermark.fitHeight > 0 {
            (Gravity.roundToEven(Double(watermark.fitWidth) * offsetScale), Gravity.roundToEven(Double(watermark.fitHeight) * offsetScale))
        } else {
            nil
        }
        if let box { mark = try fitted(mark, into: box) }
        if watermark.rotation.truncatingRemainder(dividingBy: 360) != 0 {
            let straight = try vips("preparing the watermark") { try mark.withAlpha() }
            try reserveMemory(MemoryCost.product(mark.width + mark.height, mark.width + mark.height, 8), for: "turning the watermark")
            let turned = try vips("turning the watermark") { try straight.turned(clockwise: watermark.rotation) }
            // Its pixels computed under the kill switch, as every step's.
            mark = try computingPixels(of: turned) { pass throws(VipsError) in try turned.inMemory(pass) }
        }
        if watermark.shadowSigma > 0 {
            let straight = try vips("preparing the watermark") { try mark.withAlpha() }
            let sigma = watermark.shadowSigma * offsetScale
            let shadowed = try vips("the watermark's shadow") { try straight.withShadow(sigma: sigma) }
            // A Gaussian as any other: its work bounded by the cost rule, its
            // copy in the budget, its pixels computed under the kill switch.
            try checkCost(of: "watermark shadow", sigma: sigma, on: shadowed)
            try reserveInMemory(shadowed, for: "shadowing")
            mark = try computingPixels(of: shadowed) { pass throws(VipsError) in try shadowed.inMemory(pass) }
        }
        if watermark.replicate {
            // The offsets are the space between tiles, shared on both sides.
            let gravity = watermark.gravity
            let gapX = abs(gravity.x) >= 1 ? Gravity.roundToEven(gravity.x * offsetScale) : Gravity.scaleToEven(image.width, gravity.x)
            let gapY = abs(gravity.y) >= 1 ? Gravity.roundToEven(gravity.y * offsetScale) : Gravity.scaleToEven(image.height, gravity.y)
            guard (0...options.limits.maxResultDimension).contains(gapX), (0...options.limits.maxResultDimension).contains(gapY) else {
                throw .invalidOption("watermark spacing \(gapX) x \(gapY) is outside 0...\(options.limits.maxResultDimension)")
            }
            let tile = mark
            return try vips("watermark") {
                try image.watermarked(with: tile, left: 0, top: 0, opacity: watermark.opacity, replicate: true,
                                      chessboard: watermark.chessboard, gap: (gapX, gapY))
            }
        }
        let (left, top) = watermark.gravity.placement(outer: (image.width, image.height), inner: (mark.width, mark.height),
                                                      offsetScale: offsetScale, allowOverflow: true)
        let placed = mark
        return try vips("watermark") {
            try image.watermarked(with: placed, left: left, top: top, opacity: watermark.opacity, replicate: false, gap: (0, 0))
        }
    }

    /// Every number of the watermark in its range.
    private func check(_ watermark: Watermark) throws(DarkroomError) {
        guard watermark.opacity.isFinite, StepRanges.fraction.contains(watermark.opacity) else {
            throw .invalidOption("watermark opacity \(watermark.opacity) is outside \(StepRanges.text(StepRanges.fraction))")
        }
        guard watermark.scale.isFinite, StepRanges.watermarkScale.contains(watermark.scale) else {
            throw .invalidOption("watermark scale \(watermark.scale) is outside \(StepRanges.text(StepRanges.watermarkScale))")
        }
        guard watermark.gravity.isValid, !watermark.gravity.readsPixels, watermark.gravity.kind != .focusPoint else {
            throw .invalidOption("watermark position \(watermark.gravity.key) is not a side, a corner or the centre")
        }
        let limit = options.limits.maxResultDimension
        guard (0...limit).contains(watermark.fitWidth), (0...limit).contains(watermark.fitHeight) else {
            throw .invalidOption("watermark size \(watermark.fitWidth) x \(watermark.fitHeight) is outside 0...\(limit) a side")
        }
        guard watermark.rotation.isFinite, StepRanges.watermarkAngle.contains(watermark.rotation) else {
            throw .invalidOption("watermark rotation \(watermark.rotation) is outside \(StepRanges.text(StepRanges.watermarkAngle)) degrees")
        }
        guard watermark.shadowSigma.isFinite, StepRanges.shadowSigma.contains(watermark.shadowSigma) else {
            throw .invalidOption("watermark shadow \(watermark.shadowSigma) is outside \(StepRanges.text(StepRanges.shadowSigma))")
        }
    }

    /// `mark` fitted into `box` (a side of 0 follows the other), enlarged
    /// if need be, within the result limit.
    private func fitted(_ mark: VImage, into box: (width: Int, height: Int)) throws(DarkroomError) -> VImage {
        let fitted = Resize(width: box.width, height: box.height, enlarge: true).geometry(sourceWidth: mark.width, sourceHeight: mark.height)
        guard fitted.scaledWidth <= options.limits.maxResultDimension, fitted.scaledHeight <= options.limits.maxResultDimension else {
            throw .invalidOption("the watermark would be \(fitted.scaledWidth) x \(fitted.scaledHeight) pixels, over the limit of \(options.limits.maxResultDimension)")
        }
        guard (fitted.scaledWidth, fitted.scaledHeight) != (mark.width, mark.height) else { return mark }
        let (h, v) = (Double(fitted.scaledWidth) / Double(mark.width), Double(fitted.scaledHeight) / Double(mark.height))
        return try vips("scaling the watermark") { try mark.resized(horizontal: h, vertical: v) }
    }

    /// A text watermark's pixels, in memory: the markup parsed, its fonts
    /// found among those installed, and its size measured before libvips
    /// draws it, in `sans 16` at the device pixel ratio.
    private func textMark(_ markup: String, width: Int, scale: Double) throws(DarkroomError) -> VImage {
        guard Watermark.isValidText(markup) else { throw .invalidOption(Watermark.textRule) }
        let (problem, families, metrics) = TextMarkup.check(markup)
        if let problem { throw .invalidOption("the text watermark's markup is not valid: \(problem)") }
        for family in families where !FontFamilies.isInstalled(family) {
            throw .invalidOption("the text watermark's font '\(family)' is not installed here (\(FontFamilies.sample))")
        }
        let (font, wrap, dpi) = ("sans 16", max(16, width), max(1, min(72 * 100, Int((72 * scale).rounded()))))
        // Points to pixels at this resolution; a scale multiplies the size.
        let pixels = Double(dpi) / 72
        let fontSize = max(16, metrics.size) * max(1, metrics.scale) * pixels
        let asked = [("font size", fontSize), ("letter spacing", metrics.spacing * pixels), ("rise", metrics.rise * pixels),
                     ("line height", max(metrics.lineHeight * fontSize, metrics.absoluteLineHeight * pixels))]
        for (what, value) in asked where !value.isFinite || value > Self.maxTextFontPixels {
            throw .invalidOption("the text watermark's markup asks for a \(what) of \(value.isFinite ? "\(Int(value))" : "\(value)") pixels; at most \(Int(Self.maxTextFontPixels))")
        }
        let size = TextMarkup.extents(markup, font: font, width: wrap, dpi: dpi)
        guard size.width <= options.limits.maxResultDimension, size.height <= options.limits.maxResultDimension,
              size.width * size.height <= Self.maxTextPixels else {
            throw .invalidOption("the text watermark would be \(size.width) x \(size.height) pixels; at most \(options.limits.maxResultDimension) a side and \(Self.maxTextPixels) in all")
        }
        try reserveMemory(MemoryCost.product(max(1, size.width), max(1, size.height), 8), for: "the text watermark")
        do throws(VipsError) {
            let drawn = try VImage.markup(markup, font: font, width: wrap, dpi: dpi)
            return try killSwitch.vips.armed(drawn) { pass throws(VipsError) in try drawn.inMemory(pass) }
        } catch {
            // A font too small to draw, or nothing visible, is the URL's doing.
            throw DarkroomError(.invalidOption, "the text watermark draws nothing: its markup has no visible text, or its font is too small",
                                underlying: error.message)
        }
    }

    /// The watermark's pixels, in memory as 8-bit sRGB: decoded while its
    /// bytes are certainly alive, since libvips reads a buffer lazily.
    private func loadWatermark(_ watermark: WatermarkImage) throws(DarkroomError) -> VImage {
        guard case .image(let format) = ImageFormat.sniff(watermark.data) else {
            throw DarkroomError(.notAnImage, "the watermark is not an image")
        }
        return try withRawBytes(of: watermark.data) { raw throws(DarkroomError) in
            try checkStructure(raw, format: format)
            let image: VImage
            do throws(VipsError) {
                image = try VImage.load(raw, loader: format.loader, randomAccess: true)
            } catch {
                throw DarkroomError(.corruptImage, "the watermark image could not be read", underlying: error.message)
            }
            let pixels = image.width.multipliedReportingOverflow(by: image.height)
            guard !pixels.overflow, pixels.partialValue <= options.limits.maxSourcePixels else {
                throw DarkroomError(.tooManyPixels, "the watermark is \(image.width) x \(image.height) pixels, over the limit of \(options.limits.maxSourcePixels) pixels")
            }
            guard (1...5).contains(image.bands) else {
                throw DarkroomError(.notAnImage, "the watermark has \(image.bands) channels a pixel; Darkroom reads 1 to 5")
            }
            // Its decode and its 8-bit copy count in the request's budget,
            // as the source's do.
            let decoder = MemoryCost.wholeDecode(format, bands: image.bands, bytesPerSample: image.bytesPerSample, heif: nil)
            try reserveMemory(MemoryCost.product(image.width, image.height, decoder + 4), for: "the \(image.width) x \(image.height) watermark")
            return try computingPixels(of: image) { pass throws(VipsError) in try image.srgb8().inMemory(pass) }
        }
    }
}
