import DarkroomImaging

extension ProcessingRun {
    /// Applies one step. `referenceSize` is the size the step's numbers are
    /// measured against (the source's, for a resize after shrink-on-load).
    func apply(
        _ operation: ImageOperation,
        to image: VImage,
        referenceSize: (width: Int, height: Int),
        layout: inout StepLayout
    ) throws(DarkroomError) -> VImage {
        switch operation {
        case .resize(let resize):
            return try self.resize(image, resize, referenceSize: referenceSize, layout: &layout)
        case .frame(let frame):
            return try self.frame(image, frame, layout: layout)
        case .crop(let rect):
            return try crop(image, rect)
        case .cropPlaced(let width, let height, let gravity, let aspect):
            // crop_objects, just before, takes precedence where it found objects.
            if layout.croppedToObjects { return image }
            let size = try CropAspect.placedSize(width: width, height: height, aspect: aspect, in: (image.width, image.height))
            return try cut(image, width: size.width, height: size.height, gravity: gravity)
        case .watermark(let watermark):
            return try self.watermark(image, watermark, offsetScale: layout.dprScale)
        case .trim(let threshold, let colour, let equalHorizontal, let equalVertical):
            return try trim(image, threshold: threshold, colour: colour, equalHorizontal: equalHorizontal, equalVertical: equalVertical)
        case .sepia(let intensity):
            guard StepRanges.fraction.contains(intensity) else { throw .invalidOption("sepia intensity \(intensity) is outside \(StepRanges.text(StepRanges.fraction))") }
            if intensity == 0 { return image }
            let matrix = ImageOperation.sepiaMatrix(intensity: intensity)
            // Small images (after a resize): in memory, in fixed point, at a
            // fraction of the cost. Large ones stream through libvips.
            if image.width * image.height <= Self.inMemoryColourPixels {
                try reserveMemory(MemoryCost.product(image.width, image.height, image.bands), for: "sepia on the \(image.width) x \(image.height) image in memory")
                return try computingPixels(of: image) { pass throws(VipsError) in try image.recombinedInMemory(matrix, through: pass) }
            }
            return try vips("sepia") { try image.recombined(matrix) }
        case .grayscale:
            return try vips("grayscale") { try image.grayscale().srgb8(transformingProfile: options.output.stripColourProfile) }
        case .adjust(let brightness, let contrast, let saturation):
            guard StepRanges.brightness.contains(brightness) else { throw .invalidOption("brightness \(brightness) is outside \(StepRanges.text(StepRanges.brightness))") }
            guard contrast.isFinite, StepRanges.contrast.contains(contrast) else { throw .invalidOption("contrast \(contrast) is outside \(StepRanges.text(StepRanges.contrast))") }
            guard saturation.isFinite, StepRanges.saturation.contains(saturation) else { throw .invalidOption("saturation \(saturation) is outside \(StepRanges.text(StepRanges.saturation))") }
            if brightness == 0, contrast == 1, saturation == 1 { return image }
            return try vips("adjusting the colours") { try image.adjusted(brightness: Double(brightness), contrast: contrast, saturation: saturation) }
        case .duotone(let intensity, let shadows, let highlights):
            guard intensity.isFinite, StepRanges.fraction.contains(intensity) else { throw .invalidOption("duotone intensity \(intensity) is outside \(StepRanges.text(StepRanges.fraction))") }
            if intensity == 0 { return image }
            return try vips("duotone") { try image.duotoned(intensity: intensity, shadows: shadows.channels, highlights: highlights.channels) }
        case .unsharpMasking(let onDownscale, let weight, let divider):
            guard weight.isFinite, weight > 0, weight <= 100, divider.isFinite, divider > 0, divider <= 10_000 else {
                throw .invalidOption("unsharp masking weight \(weight) and divider \(divider): each above 0 (weight up to 100, divider up to 10000)")
            }
            if onDownscale {
                let shrank = layout.geometry.map { min($0.horizontalScale, $0.verticalScale) < 1 } ?? false
                let sharpened = options.operations.contains { if case .sharpen = $0 { true } else { false } }
                guard shrank, !sharpened else { return image }
            }
            return try vips("unsharp masking") { try image.unsharpMasked(weight: weight, divider: divider) }
        case .gradient(let opacity, let colour, let angle, let start, let stop):
            guard opacity.isFinite, StepRanges.fraction.contains(opacity), angle.isFinite, StepRanges.angle.contains(angle),
                  start.isFinite, stop.isFinite, StepRanges.fraction.contains(start), StepRanges.fraction.contains(stop), start < stop
            else { throw .invalidOption("gradient: opacity and start < stop from 0 to 1, an angle in degrees") }
            if opacity == 0 { return image }
            return try vips("gradient") { try image.gradient(colour: colour.channels, opacity: opacity, angle: angle, start: start, stop: stop) }
        case .progressiveBlur(let sigma, let angle, let start, let stop):
            guard sigma.isFinite, sigma > 0, StepRanges.blurSigma.contains(sigma), angle.isFinite, StepRanges.angle.contains(angle),
                  start.isFinite, stop.isFinite, StepRanges.fraction.contains(start), StepRanges.fraction.contains(stop), start < stop
            else { throw .invalidOption("progressive blur: sigma above 0 up to \(StepRanges.text(StepRanges.blurSigma.upperBound)), start < stop from 0 to 1, an angle in degrees") }
            try checkCost(of: "progressive blur", sigma: sigma, on: image)
            return try vips("progressive blur") { try image.progressivelyBlurred(sigma: sigma, angle: angle, start: start, stop: stop) }
        case .backgroundWithAlpha(let colour, let alpha):
            guard alpha.isFinite, StepRanges.fraction.contains(alpha) else { throw .invalidOption("background alpha \(alpha) is outside \(StepRanges.text(StepRanges.fraction))") }
            if alpha == 1 { return try flattened(image, onto: colour) }
            return try vips("filling the transparency") { try image.flattened(onto: colour.channels, alpha: alpha) }
        case .blurDetections(let sigma, let classes):
            return try blurringDetections(image, sigma: sigma, classes: classes)
        case .drawDetections(let classes):
            return try drawingDetections(image, classes: classes)
        case .cropObjects(let scale, let classes):
            return try croppingToObjects(image, scale: scale, classes: classes, layout: &layout)
        case .blurAreas(let sigma, let areas):
            guard sigma.isFinite, sigma > 0, StepRanges.blurSigma.contains(sigma) else { throw .invalidOption("blur_areas sigma \(sigma) is outside \(StepRanges.text(StepRanges.blurSigma))") }
            guard areas.count <= 64, areas.allSatisfy({ [$0.left, $0.top, $0.width, $0.height].allSatisfy { $0.isFinite && StepRanges.fraction.contains($0) } }) else {
                throw .invalidOption("blur_areas takes at most 64 areas, each as fractions from 0 to 1")
            }
            // The sigma is the result's: this image is larger by the resize to come.
            let scaled = sigma * pixelsPerResultPixel(image)
            // Given on the image as stored, as Pro reads them; this one is upright.
            let rectangles = areas.map { $0.upright(fromStored: layout.sourceOrientation).pixels(width: image.width, height: image.height) }
            // Only the areas are blurred: their pixels are the work.
            let blurred = rectangles.reduce(0.0) { $0 + Double($1.width) * Double($1.height) }
            try checkCost(of: "blur_areas", sigma: scaled, pixels: min(blurred, Double(image.width) * Double(image.height)), on: image)
            return try vips("blurring areas") { try image.blurred(sigma: scaled, areas: rectangles) }
        case .colorize(let opacity, let colour, let keepAlpha):
            guard opacity.isFinite, StepRanges.fraction.contains(opacity) else { throw .invalidOption("colorize opacity \(opacity) is outside \(StepRanges.text(StepRanges.fraction))") }
            if opacity == 0 { return image }
            return try vips("colorize") { try image.colourised(opacity: opacity, colour: colour.channels, keepingAlpha: keepAlpha) }
        case .blur(let sigma):
            guard sigma > 0, StepRanges.blurSigma.contains(sigma) else { throw .invalidOption("blur sigma \(sigma) is outside \(StepRanges.text(StepRanges.blurSigma))") }
            try checkCost(of: "blur", sigma: sigma, on: image)
            return try vips("blur") { try image.blurred(sigma: sigma) }
        case .sharpen(let sigma):
            guard sigma > 0, StepRanges.sharpenSigma.contains(sigma) else { throw .invalidOption("sharpen sigma \(sigma) is outside \(StepRanges.text(StepRanges.sharpenSigma))") }
            try checkCost(of: "sharpen", sigma: sigma, on: image)
            return try vips("sharpen") { try image.sharpened(sigma: sigma).srgb8(transformingProfile: options.output.stripColourProfile) }
        case .rotate(let degrees):
            guard degrees % 90 == 0 else { throw .invalidOption("rotate \(degrees): only multiples of 90 degrees") }
            let quarters = ((degrees / 90) % 4 + 4) % 4
            if quarters == 0 { return image }
            // Read across its rows: libvips keeps the image it turns.
            if quarters != 2 { try reserveInMemory(image, for: "turning") }
            return try vips("rotate") { try image.rotated(quarters: quarters) }
        case .flip(let horizontal, let vertical):
            var flipped = image
            if horizontal { flipped = try vips("flip") { try flipped.flipped(horizontally: true) } }
            if vertical { flipped = try vips("flip") { try flipped.flipped(horizontally: false) } }
            return flipped
        case .pixelate(let size):
            guard size >= 1, StepRanges.pixelateSize.contains(size) else { throw .invalidOption("pixelate size \(size) is outside 1...\(StepRanges.pixelateSize.upperBound)") }
            // A block larger than the image is the image's average.
            let block = min(size, image.width, image.height)
            if block <= 1 { return image }
            return try vips("pixelate") { try image.pixelated(size: block) }
        case .padding(let top, let right, let bottom, let left, let background):
            return try pad(image, top: top, right: right, bottom: bottom, left: left, background: background)
        case .background(let colour):
            return try flattened(image, onto: colour)
        case .extend(let width, let height, let aspectOnly, let gravity, let background):
            return try extend(image, width: width, height: height, aspectOnly: aspectOnly, gravity: gravity, background: background)
        }
    }

    /// Holds a step's copy of the whole image in the run's budget.
    func reserveInMemory(_ image: VImage, for step: String) throws(DarkroomError) {
        try reserveMemory(MemoryCost.product(image.width, image.height, image.bands, image.bytesPerSample),
                          for: "\(step) the \(image.width) x \(image.height) image in memory")
    }

    /// The image without its border; see ``ImageOperation/trim(threshold:colour:equalHorizontal:equalVertical:)``.
    private func trim(_ image: VImage, threshold: Double, colour: RGBColour?, equalHorizontal: Bool,
                      equalVertical: Bool) throws(DarkroomError) -> VImage {
        guard threshold.isFinite, StepRanges.trimThreshold.contains(threshold) else { throw .invalidOption("trim threshold \(threshold) is outside \(StepRanges.text(StepRanges.trimThreshold))") }
        guard image.width >= 3, image.height >= 3 else { return image }
        // In memory: the search reads every pixel and the cut reads them
        // again, which a sequentially decoded image cannot serve.
        try reserveInMemory(image, for: "trimming")
        let pixels = try computingPixels(of: image) { pass throws(VipsError) in try image.inMemory(pass) }
        var box = try computingPixels(of: pixels) { pass throws(VipsError) in
            try pixels.trimBox(threshold: threshold, background: colour.map { (Double($0.red), Double($0.green), Double($0.blue)) }, through: pass)
        }
        if box.width == 0 || box.height == 0 { return pixels }
        if equalHorizontal {
            let cut = min(box.left, pixels.width - box.left - box.width)
            (box.left, box.width) = (cut, pixels.width - 2 * cut)
        }
        if equalVertical {
            let cut = min(box.top, pixels.height - box.top - box.height)
            (box.top, box.height) = (cut, pixels.height - 2 * cut)
        }
        if box.width == pixels.width && box.height == pixels.height { return pixels }
        return try vips("crop") { try pixels.cropped(left: box.left, top: box.top, width: box.width, height: box.height) }
    }

    /// The image on a canvas of at least the size (or the aspect ratio)
    /// asked for, placed by gravity; smart gravity places it centred.
    private func extend(_ image: VImage, width: Int?, height: Int?, aspectOnly: Bool, gravity: Gravity,
                        background: RGBColour?) throws(DarkroomError) -> VImage {
        guard gravity.isValid else { throw .invalidOption("gravity \(gravity.key) is out of range") }
        let limit = options.limits.maxResultDimension
        for side in [width, height] {
            if let side, !(1...limit).contains(side) { throw .invalidOption("extend size \(side) is outside 1...\(limit)") }
        }
        var canvas = (width: image.width, height: image.height)
        if aspectOnly {
            guard let width, let height else { return image }
            // The smallest canvas of that ratio that holds the image.
            let ratio = Double(width) / Double(height)
            if Double(image.width) / Double(image.height) < ratio {
                canvas.width = max(image.width, Int((Double(image.height) * ratio).rounded()))
            } else {
                canvas.height = max(image.height, Int((Double(image.width) / ratio).rounded()))
            }
        } else {
            canvas = (max(image.width, width ?? 0), max(image.height, height ?? 0))
        }
        let spareX = canvas.width - image.width, spareY = canvas.height - image.height
        if spareX == 0 && spareY == 0 { return image }
        let (left, top) = (gravity.readsPixels ? Gravity.centre : gravity).placement(outer: canvas, inner: (image.width, image.height))
        return try pad(image, top: top, right: spareX - left, bottom: spareY - top, left: left, background: background)
    }

    /// Transparency filled with `colour`, alpha dropped; an image without
    /// alpha as it is.
    func flattened(_ image: VImage, onto colour: RGBColour) throws(DarkroomError) -> VImage {
        guard image.hasAlpha else { return image }
        return try vips("flattening onto #\(colour.hex)") { try image.flattened(red: colour.red, green: colour.green, blue: colour.blue) }
    }

    /// Space around the image: the background colour where one is given;
    /// otherwise transparent on an image with alpha and white on one
    /// without (JPEG has no transparency to show).
    private func pad(_ image: VImage, top: Int, right: Int, bottom: Int, left: Int, background: RGBColour?) throws(DarkroomError) -> VImage {
        let sides = [top, right, bottom, left]
        let limit = options.limits.maxResultDimension
        guard sides.allSatisfy({ (0...limit).contains($0) }) else {
            throw .invalidOption("padding \(sides.map(String.init).joined(separator: ":")) is outside 0...\(limit) on a side")
        }
        if sides.allSatisfy({ $0 == 0 }) { return image }
        let width = image.width + left + right, height = image.height + top + bottom
        try checkResultSize(width: width, height: height)
        let colour: [Double]
        switch (background, image.hasAlpha) {
        case (let fill?, false): colour = [fill.red, fill.green, fill.blue].map(Double.init)
        case (let fill?, true): colour = [fill.red, fill.green, fill.blue, 255].map(Double.init)
        case (nil, true): colour = [0, 0, 0, 0]
        case (nil, false): colour = [255, 255, 255]
        }
        return try vips("padding") {
            try image.embedded(left: left, top: top, width: width, height: height, colour: Array(colour.prefix(image.bands)))
        }
    }

    /// A Gaussian's work grows with the pixels times sigma (its kernel is
    /// about 6 sigma wide): bounded so that one request cannot take a core
    /// for a minute. 50 million allows sigma 190 on a 512 x 512 answer, 12
    /// on a whole 4-megapixel photo.
    static let maxKernelCost = 50_000_000.0

    func checkCost(of step: String, sigma: Double, pixels given: Double? = nil, on image: VImage) throws(DarkroomError) {
        let pixels = given ?? Double(image.width) * Double(image.height)
        guard pixels * sigma > Self.maxKernelCost else { return }
        let most = (Self.maxKernelCost / pixels * 10).rounded(.down) / 10
        throw .invalidOption("\(step) sigma \(sigma.formatted()) on a \(image.width) x \(image.height) image is too much work: at most \(most.formatted()) at this size (resize first)")
    }

    /// Colour steps on images up to this size are computed in memory.
    static let inMemoryColourPixels = 4_000_000

    /// Scales by the resize's geometry, measured on the reference size,
    /// then cuts to its crop by the gravity (pixel offsets at the device
    /// pixel ratio the geometry settled on). The geometry stays in `layout`
    /// for the frame and the watermark after it.
    private func resize(_ image: VImage, _ resize: Resize, referenceSize: (width: Int, height: Int),
                        layout: inout StepLayout) throws(DarkroomError) -> VImage {
        try resize.validate()
        let geometry = resize.geometry(sourceWidth: referenceSize.width, sourceHeight: referenceSize.height, frame: layout.frame,
                                       maxResultDimension: options.limits.maxResultDimension)
        layout.geometry = geometry
        var image = image
        // Object gravity looks on the image before it is made smaller,
        // where faces are larger, when the fill will cut.
        var objects: [ObjectFocus.Weighted]?
        let cuts = ResizeGeometry.minNonZero(geometry.cropWidth, geometry.scaledWidth) < geometry.scaledWidth
            || ResizeGeometry.minNonZero(geometry.cropHeight, geometry.scaledHeight) < geometry.scaledHeight
        if cuts, resize.gravity.kind == .objects {
            image = try materialised(image, for: "looking for objects in")
            objects = try self.objects(in: image, classes: resize.gravity.objectClasses)
        }
        var result = image
        if geometry.scaledWidth != image.width || geometry.scaledHeight != image.height {
            let h = Double(geometry.scaledWidth) / Double(image.width)
            let v = Double(geometry.scaledHeight) / Double(image.height)
            let kernel = resize.algorithm.map(Self.kernel) ?? .lanczos3
            result = try vips("resize") { try image.resized(horizontal: h, vertical: v, kernel: kernel) }
        }
        let width = ResizeGeometry.minNonZero(geometry.cropWidth, result.width)
        let height = ResizeGeometry.minNonZero(geometry.cropHeight, result.height)
        guard width < result.width || height < result.height else { return result }
        let (h, v) = (Double(result.width) / Double(image.width), Double(result.height) / Double(image.height))
        return try cut(result, width: width, height: height, gravity: resize.gravity, offsetScale: geometry.dprScale,
                       objects: objects?.map { ObjectFocus.Weighted(object: $0.object.scaled(horizontal: h, vertical: v), weight: $0.weight) })
    }

    /// libvips' kernel for imgproxy's resizing algorithm.
    static func kernel(_ algorithm: Resize.Algorithm) -> VImage.Kernel {
        switch algorithm {
        case .nearest: .nearest
        case .linear: .linear
        case .cubic: .cubic
        case .lanczos2: .lanczos2
        case .lanczos3: .lanczos3
        }
    }

    /// imgproxy's extend, extend-aspect-ratio and padding, in that order,
    /// measured by the resize before (see ``Frame``).
    private func frame(_ image: VImage, _ frame: Frame, layout: StepLayout) throws(DarkroomError) -> VImage {
        var image = image
        let geometry = layout.geometry
        let dprScale = layout.dprScale
        if let gravity = frame.extend {
            image = try canvas(image, width: geometry?.targetWidth ?? 0, height: geometry?.targetHeight ?? 0,
                               gravity: gravity, offsetScale: dprScale, background: frame.background)
        } else if let gravity = frame.extendAspectRatio, let geometry, geometry.aspectWidth > 0, geometry.aspectHeight > 0 {
            image = try canvas(image, width: geometry.aspectWidth, height: geometry.aspectHeight,
                               gravity: gravity, offsetScale: dprScale, background: frame.background)
        }
        if let padding = frame.padding {
            let sides = [padding.top, padding.right, padding.bottom, padding.left]
            guard sides.allSatisfy({ StepRanges.side.contains($0) }) else {
                throw .invalidOption("padding \(padding.identifier) is outside \(StepRanges.text(StepRanges.side)) on a side")
            }
            image = try pad(image, top: Gravity.scaleToEven(padding.top, dprScale), right: Gravity.scaleToEven(padding.right, dprScale),
                            bottom: Gravity.scaleToEven(padding.bottom, dprScale), left: Gravity.scaleToEven(padding.left, dprScale),
                            background: frame.background)
        }
        return image
    }

    /// The image on a `width` x `height` canvas (0: its own side), placed
    /// by gravity, as imgproxy's extend: nothing when the canvas is no
    /// larger on either side.
    private func canvas(_ image: VImage, width: Int, height: Int, gravity: Gravity, offsetScale: Double,
                        background: RGBColour?) throws(DarkroomError) -> VImage {
        guard gravity.isValid, !gravity.readsPixels else { throw .invalidOption("extend gravity \(gravity.key) is not a side, a corner, the centre or a focus point") }
        if width <= image.width && height <= image.height { return image }
        let canvas = (width: width > 0 ? width : image.width, height: height > 0 ? height : image.height)
        try checkResultSize(width: canvas.width, height: canvas.height)
        let (left, top) = gravity.placement(outer: canvas, inner: (image.width, image.height), offsetScale: offsetScale)
        var source = image
        if canvas.width < image.width || canvas.height < image.height {
            // A canvas narrower on one side cuts that side, as an embed does.
            let cutWidth = min(image.width, canvas.width), cutHeight = min(image.height, canvas.height)
            source = try vips("crop") { try image.cropped(left: 0, top: 0, width: cutWidth, height: cutHeight) }
        }
        return try pad(source, top: top, right: canvas.width - source.width - left, bottom: canvas.height - source.height - top,
                       left: left, background: background)
    }

    /// Cuts a `width` x `height` region out of `image`, placed by `gravity`.
    /// Object gravity uses `objects` (in `image`'s pixels) where given,
    /// else looks for them.
    private func cut(_ image: VImage, width: Int, height: Int, gravity: Gravity, offsetScale: Double = 1,
                     objects: [ObjectFocus.Weighted]? = nil) throws(DarkroomError) -> VImage {
        guard gravity.isValid else { throw .invalidOption("gravity \(gravity.key) is out of range") }
        let width = min(width, image.width), height = min(height, image.height)
        if gravity.kind == .objects {
            let (pixels, placement) = try objectsCut(image, width: width, height: height, gravity: gravity, offsetScale: offsetScale, objects: objects)
            guard let (left, top) = placement else {
                // None found: imgproxy Pro's fallback.
                return try cut(pixels, width: width, height: height, gravity: options.objectDetection.fallbackToSmart ? .smart : .centre, offsetScale: offsetScale)
            }
            return try vips("crop") { try pixels.cropped(left: left, top: top, width: width, height: height) }
        }
        if gravity.kind == .smart {
            // The search reads the image in memory, every pixel computed
            // under the kill switch.
            try reserveInMemory(image, for: "the smart crop")
            return try computingPixels(of: image) { pass throws(VipsError) in try image.smartCropped(width: width, height: height, through: pass) }
        }
        let (left, top) = gravity.placement(outer: (image.width, image.height), inner: (width, height), offsetScale: offsetScale)
        return try vips("crop") { try image.cropped(left: left, top: top, width: width, height: height) }
    }

    private func crop(_ image: VImage, _ rect: CropRect) throws(DarkroomError) -> VImage {
        guard rect.width > 0, rect.height > 0, rect.x >= 0, rect.y >= 0 else {
            throw .invalidOption("crop \(rect.width)x\(rect.height)+\(rect.x)+\(rect.y) must have a positive size and offset")
        }
        // Cut to the part of the rectangle that lies inside the image.
        let width = min(rect.width, image.width - rect.x)
        let height = min(rect.height, image.height - rect.y)
        guard width > 0, height > 0 else {
            throw .invalidOption("crop at \(rect.x),\(rect.y) lies outside the \(image.width) x \(image.height) image")
        }
        return try vips("crop") { try image.cropped(left: rect.x, top: rect.y, width: width, height: height) }
    }
}
