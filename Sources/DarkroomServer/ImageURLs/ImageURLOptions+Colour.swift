public import Darkroom

/// imgproxy Pro's colour options, free here: `adjust`/`a`,
/// `brightness`/`br`, `contrast`/`co`, `saturation`/`sa`,
/// `monochrome`/`mc`, `duotone`/`dt` and `colorize`/`col`.
extension ImageURLOptions {
    /// The colour options a URL set, with imgproxy's defaults.
    public struct Colour: Sendable, Hashable {
        /// -255...255.
        public var brightness = 0
        /// 1 leaves the image.
        public var contrast = 1.0
        public var saturation = 1.0
        public var duotone: (intensity: Double, shadows: RGBColour, highlights: RGBColour)?
        public var colorize: (opacity: Double, colour: RGBColour, keepAlpha: Bool)?
        public var gradient: (opacity: Double, colour: RGBColour, angle: Double, start: Double, stop: Double)?
        /// imgproxy Pro's `pbl`: the sigma where the ramp stops.
        public var progressiveBlur: (sigma: Double, angle: Double, start: Double, stop: Double)?

        public init() {}

        /// The steps, in imgproxy's order of these filters: the adjustments,
        /// then the tone, then the overlay; then the progressive blur.
        var operations: [ImageOperation] {
            var operations: [ImageOperation] = []
            if brightness != 0 || contrast != 1 || saturation != 1 {
                operations.append(.adjust(brightness: brightness, contrast: contrast, saturation: saturation))
            }
            if let duotone, duotone.intensity > 0 {
                operations.append(.duotone(intensity: duotone.intensity, shadows: duotone.shadows, highlights: duotone.highlights))
            }
            if let colorize, colorize.opacity > 0 {
                operations.append(.colorize(opacity: colorize.opacity, colour: colorize.colour, keepAlpha: colorize.keepAlpha))
            }
            if let gradient, gradient.opacity > 0 {
                operations.append(.gradient(opacity: gradient.opacity, colour: gradient.colour, angle: gradient.angle, start: gradient.start, stop: gradient.stop))
            }
            if let progressiveBlur, progressiveBlur.sigma > 0 {
                operations.append(.progressiveBlur(sigma: progressiveBlur.sigma, angle: progressiveBlur.angle, start: progressiveBlur.start,
                                                   stop: progressiveBlur.stop))
            }
            return operations
        }

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.operations == rhs.operations }
        public func hash(into hasher: inout Hasher) { hasher.combine(operations) }
    }

    static var colourRules: OptionRules<ImageURLOptions> {
        var table = OptionRules<ImageURLOptions>(route: .processing)
        table.add(URLOption(["adjust", "a"], "%brightness:%contrast:%saturation", ArgumentRange("brightness", StepRanges.brightness), ArgumentRange("contrast", StepRanges.contrast), ArgumentRange("saturation", StepRanges.saturation), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            // brightness:contrast:saturation, each optional.
            try a.need(1...3)
            if let brightness = try a.number(0, "brightness", Double(StepRanges.brightness.lowerBound)...Double(StepRanges.brightness.upperBound)) { o.colour.brightness = Int(brightness.rounded()) }
            if let contrast = try a.number(1, "contrast", StepRanges.contrast) { o.colour.contrast = contrast }
            if let saturation = try a.number(2, "saturation", StepRanges.saturation) { o.colour.saturation = saturation }
        }
        table.add(URLOption(["brightness", "br"], "%brightness", ArgumentRange("brightness", StepRanges.brightness), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.colour.brightness = try a.whole(0, "brightness", StepRanges.brightness) ?? 0
        }
        // imgproxy Pro names both contrast and crop_objects `co`: one
        // argument is contrast, a scale and class names crop_objects.
        table.add(URLOption(["contrast", "co"], "%contrast", ArgumentRange("contrast", StepRanges.contrast), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            if a.name == "co", a.values.count > 1 { return try o.applyCropObjects(&a) }
            try a.need(1...1)
            o.colour.contrast = try a.number(0, "contrast", StepRanges.contrast) ?? 1
        }
        table.add(URLOption(["saturation", "sa"], "%saturation", ArgumentRange("saturation", StepRanges.saturation), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in try a.need(1...1); o.colour.saturation = try a.number(0, "saturation", StepRanges.saturation) ?? 1 }
        table.add(URLOption(["monochrome", "mc"], "%intensity:%color", ArgumentRange("intensity", StepRanges.fraction), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            // intensity:colour; the colour the palette runs to from black.
            try a.need(1...2)
            let intensity = try a.number(0, "intensity", StepRanges.fraction) ?? 0
            let tint = try a.colour(1) ?? RGBColour(red: 0xb3, green: 0xb3, blue: 0xb3)!
            o.colour.duotone = intensity > 0 ? (intensity, RGBColour(red: 0, green: 0, blue: 0)!, tint) : nil
        }
        table.add(URLOption(["duotone", "dt"], "%intensity:%color1:%color2", ArgumentRange("intensity", StepRanges.fraction), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            try a.need(1...3)
            let intensity = try a.number(0, "intensity", StepRanges.fraction) ?? 0
            let shadows = try a.colour(1) ?? RGBColour(red: 0, green: 0, blue: 0)!
            let highlights = try a.colour(2) ?? RGBColour(red: 255, green: 255, blue: 255)!
            o.colour.duotone = intensity > 0 ? (intensity, shadows, highlights) : nil
        }
        table.add(URLOption(["colorize", "col"], "%opacity:%color:%keep_alpha", ArgumentRange("opacity", StepRanges.fraction), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            try a.need(1...3)
            let opacity = try a.number(0, "opacity", StepRanges.fraction) ?? 0
            let tint = try a.colour(1) ?? RGBColour(red: 0, green: 0, blue: 0)!
            o.colour.colorize = opacity > 0 ? (opacity, tint, a.bool(2) ?? false) : nil
        }
        table.add(URLOption(["gradient", "gr"], "%opacity:%color:%direction:%start:%stop", ArgumentRange("opacity", StepRanges.fraction), ArgumentRange("direction", StepRanges.angle), ArgumentRange("start and stop", StepRanges.fraction), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            // opacity:colour:direction:start:stop; direction an angle or down, up, right, left.
            try a.need(1...5)
            let opacity = try a.number(0, "opacity", StepRanges.fraction) ?? 0
            let tint = try a.colour(1) ?? RGBColour(red: 0, green: 0, blue: 0)!
            let (angle, start, stop) = try a.ramp(from: 2)
            o.colour.gradient = opacity > 0 ? (opacity, tint, angle, start, stop) : nil
        }
        table.add(URLOption(["progressive_blur", "pbl"], "%sigma:%direction:%start:%stop", ArgumentRange("sigma", StepRanges.blurSigma), ArgumentRange("direction", StepRanges.angle), ArgumentRange("start and stop", StepRanges.fraction), cost: .kernel, pro: true, test: "BlurOptionsServingTests.theProgressiveBlurGrowsAlongItsDirection")) { o, a throws(ImageURLError) in
            // sigma:direction:start:stop, the direction as gradient's.
            try a.need(1...4)
            let sigma = try a.number(0, "sigma", StepRanges.blurSigma) ?? 0
            let (angle, start, stop) = try a.ramp(from: 1)
            o.colour.progressiveBlur = sigma > 0 ? (sigma, angle, start, stop) : nil
        }
        table.add(URLOption(["unsharp_masking", "ush"], "%mode:%weight:%divider", ArgumentRange("weight", StepRanges.unsharpWeight), ArgumentRange("divider", StepRanges.unsharpDivider), cost: .kernel, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            // mode:weight:divider, each over the server's.
            try a.need(1...3)
            if let mode = try a.choice(0, "mode", UnsharpMasking.Mode.self) { o.unsharpMasking.mode = mode }
            if let weight = try a.number(1, "weight", StepRanges.unsharpWeight) {
                guard weight > 0 else { throw .init("option '\(a.name)': the weight must be above 0") }
                o.unsharpMasking.weight = weight
            }
            if let divider = try a.number(2, "divider", StepRanges.unsharpDivider) {
                guard divider > 0 else { throw .init("option '\(a.name)': the divider must be above 0") }
                o.unsharpMasking.divider = divider
            }
        }
        table.add(URLOption(["background_alpha", "bga"], "%alpha", ArgumentRange("alpha", StepRanges.fraction), cost: .pixels, pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.backgroundAlpha = try a.number(0, "alpha", StepRanges.fraction) ?? 1
        }
        table.add(URLOption(["blur_areas", "ba"], "%sigma:%left1:%top1:%width1:%height1:...:%leftN:%topN:%widthN:%heightN", ArgumentRange("sigma", StepRanges.blurSigma), ArgumentRange("each area side", StepRanges.fraction), cost: .kernel, pro: true, test: "BlurOptionsServingTests.blurAreasFollowTheStoredOrientation")) { o, a throws(ImageURLError) in
            // sigma:left:top:width:height, for as many areas as given.
            guard a.values.count >= 1, (a.values.count - 1).isMultiple(of: 4), a.values.count <= 1 + 4 * 64 else {
                throw .init("option '\(a.name)' takes a sigma and, for each of up to 64 areas, left:top:width:height")
            }
            let sigma = try a.number(0, "sigma", StepRanges.blurSigma) ?? 0
            var areas: [BlurArea] = []
            for start in stride(from: 1, to: a.values.count, by: 4) {
                guard let left = try a.number(start, "left", StepRanges.fraction), let top = try a.number(start + 1, "top", StepRanges.fraction),
                      let width = try a.number(start + 2, "width", StepRanges.fraction), let height = try a.number(start + 3, "height", StepRanges.fraction)
                else { throw .init("option '\(a.name)': each area is left:top:width:height, fractions from 0 to 1") }
                areas.append(BlurArea(left: left, top: top, width: width, height: height))
            }
            o.blurAreas = sigma > 0 && !areas.isEmpty ? (sigma, areas) : nil
        }
        return table
    }
}

/// imgproxy Pro's unsharp masking (`IMGPROXY_UNSHARP_MASKING_*`, the URL's
/// `ush`): each setting nil where the server's stands.
public struct UnsharpMasking: Sendable, Hashable {
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Never (imgproxy's open-source behaviour, and the default here).
        case none
        /// After a resize that made the image smaller, unless `sharpen` is set (Pro's default).
        case auto
        case always
    }

    public var mode: Mode?
    /// Above 0; imgproxy's default 1.
    public var weight: Double?
    /// Above 0; imgproxy's default 24.
    public var divider: Double?

    public init(mode: Mode? = nil, weight: Double? = nil, divider: Double? = nil) {
        self.mode = mode
        self.weight = weight
        self.divider = divider
    }

    /// These over `server`'s.
    func over(_ server: UnsharpMasking) -> UnsharpMasking {
        UnsharpMasking(mode: mode ?? server.mode, weight: weight ?? server.weight, divider: divider ?? server.divider)
    }

    /// The step after the resize, if any.
    var operation: ImageOperation? {
        switch mode ?? .none {
        case .none: nil
        case .auto: .unsharpMasking(onDownscale: true, weight: weight ?? 1, divider: divider ?? 24)
        case .always: .unsharpMasking(onDownscale: false, weight: weight ?? 1, divider: divider ?? 24)
        }
    }
}

extension ImageURLOptions.Arguments {
    /// A ramp's direction (an angle, or down, up, left, right), start and
    /// stop from `index`, as Pro's `gradient` and `progressive_blur` take them.
    func ramp(from index: Int) throws(ImageURLError) -> (angle: Double, start: Double, stop: Double) {
        var angle = 0.0
        if let direction = text(index) {
            switch direction {
            case "down": angle = 0
            case "up": angle = 180
            case "left": angle = 90
            case "right": angle = 270
            default: angle = try number(index, "direction", StepRanges.angle) ?? 0
            }
        }
        let start = try number(index + 1, "start", StepRanges.fraction) ?? 0, stop = try number(index + 2, "stop", StepRanges.fraction) ?? 1
        guard start < stop else { throw .init("option '\(name)': the start \(start) must be before the stop \(stop)") }
        return (angle, start, stop)
    }
}
