import Darkroom
import Foundation

/// The parser: one rule per option name, as imgproxy's parser has them
/// (its argument counts, its lenient booleans, its gravity rules), every
/// number range-checked.
extension ImageURLOptions {
    typealias Rule = OptionRules<ImageURLOptions>.Rule

    /// Applies one `name:arg:arg` segment.
    /// - Parameter using: the presets this segment comes from, innermost
    ///   last: a preset met again among them is skipped, as imgproxy does.
    mutating func apply(_ segment: String, context: Context, using: [String]) throws(ImageURLError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        // Presets may name any option; the URL only the allowed ones.
        if using.isEmpty, let allowed = context.allowedOptions, !allowed.contains(name) {
            throw .init("option '\(name)' is not allowed here")
        }
        var arguments = Arguments(name: name, values: Array(parts.dropFirst()))
        if name == "pr" || name == "preset" {
            try applyPresets(arguments, context: context, using: using)
            return
        }
        if Self.securityOptions.contains(name), !context.allowsSecurityOptions {
            throw .init("option '\(name)' is a security option, which this server does not take from URLs")
        }
        if name == "bc" || name == "bypass_cache" {
            try arguments.need(1...1)
            let bypass = arguments.bool(0) ?? false
            // Presets the operator wrote may bypass; a URL only where allowed.
            if bypass, using.isEmpty, !context.allowsBypassCache {
                throw .init("option '\(name)' bypasses the cache, which this server does not allow from URLs")
            }
            bypassCache = bypass
            warnings += arguments.warnings
            return
        }
        if name == "exp" || name == "expires" {
            try applyExpiry(&arguments, now: context.now)
            return
        }
        guard let rule = Self.rules[name] else { throw .init("unknown option '\(name)' in '\(segment)'") }
        try rule(&self, &arguments)
        warnings += arguments.warnings
    }

    static let securityOptions: Set<String> = [
        "max_src_resolution", "msr", "max_src_file_size", "msfs", "max_animation_frames", "maf",
        "max_animation_frame_resolution", "mafr", "max_result_dimension", "mrd",
    ]

    private mutating func applyPresets(_ arguments: Arguments, context: Context, using: [String]) throws(ImageURLError) {
        guard !arguments.values.isEmpty, arguments.values.count <= 16 else { throw .init("option '\(arguments.name)' takes 1 to 16 preset names") }
        guard using.count < 8 else { throw .init("presets nest more than 8 deep") }
        for preset in arguments.values {
            guard let definition = context.presets[preset] else { throw .init("unknown preset '\(preset)'") }
            // A preset inside itself, directly or not, is a loop: skipped.
            if using.contains(preset) { continue }
            for part in definition.split(separator: "/") {
                guard part != "-" else { throw .init("preset '\(preset)' chains pipelines, which it may only where the URL names it") }
                try apply(String(part), context: context, using: using + [preset])
            }
        }
    }

    /// An integer Unix time; 0 or below: never, as imgproxy reads it.
    private mutating func applyExpiry(_ arguments: inout Arguments, now: Date) throws(ImageURLError) {
        try arguments.need(1...1)
        guard let stamp = Int(arguments.values[0]), URLRanges.unixTime.contains(stamp) else {
            throw .init("option '\(arguments.name)': '\(arguments.values[0])' is not a Unix time in whole seconds")
        }
        if stamp <= 0 {
            expires = nil
            return
        }
        if now.timeIntervalSince1970 > Double(stamp) { throw .init("the URL expired at \(Date(timeIntervalSince1970: Double(stamp)))") }
        expires = Date(timeIntervalSince1970: Double(stamp))
    }

    /// Every option by every name it has.
    static let rules = table.rules

    /// The processing options, each declared with its rule.
    static let table: OptionRules<ImageURLOptions> = {
        var table = OptionRules<ImageURLOptions>(route: .processing)
        func add(_ option: URLOption, readAs names: [String]? = nil, rule: @escaping Rule) { table.add(option, readAs: names, rule: rule) }
        // Read by `apply` before the rules: they reach past one URL's options.
        table.declare(URLOption(["preset", "pr"], "%preset_name1:%preset_name2:...:%preset_nameN", cost: .none, test: "ImageURLTests.presetsAsImgproxyDoesThem"))
        table.declare(URLOption(["bypass_cache", "bc"], "%bypass", cost: .none, pro: true, test: "CacheOptionsServingTests.bypassingTheCacheFetchesAgain"))
        table.declare(URLOption(["expires", "exp"], "%timestamp", ArgumentRange("timestamp", URLRanges.unixTime), cost: .none, test: "ImageServingTests.aURLThatExpiresBetweenTwoHitsIsRefusedTheSecondTime"))
        add(URLOption(["resize", "rs"], "%resizing_type:%width:%height:%enlarge:%extend", ArgumentRange("width", StepRanges.side), ArgumentRange("height", StepRanges.side), cost: .geometry, test: "ImageURLTests.resizeOptions")) { o, a throws(ImageURLError) in
            try a.need(1...8)
            if let type = a.text(0) { o.resizingType = try resizingType(type) }
            var size = a.dropping(1)
            try o.applySize(&size)
            a.warnings += size.warnings
        }
        add(URLOption(["size", "s"], "%width:%height:%enlarge:%extend", ArgumentRange("width", StepRanges.side), ArgumentRange("height", StepRanges.side), cost: .geometry, test: "ImageURLTests.resizeOptions")) { o, a throws(ImageURLError) in
            try a.need(1...7)
            try o.applySize(&a)
        }
        add(URLOption(["resizing_type", "rt"], "%resizing_type", cost: .geometry, test: "ImageURLTests.resizeOptions")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.resizingType = try resizingType(a.values[0])
        }
        add(URLOption(["width", "w"], "%width", ArgumentRange("width", StepRanges.side), cost: .geometry, test: "ImageURLTests.resizeOptions")) { o, a throws(ImageURLError) in try a.need(1...1); o.width = try a.size(0, "width") ?? 0 }
        add(URLOption(["height", "h"], "%height", ArgumentRange("height", StepRanges.side), cost: .geometry, test: "ImageURLTests.resizeOptions")) { o, a throws(ImageURLError) in try a.need(1...1); o.height = try a.size(0, "height") ?? 0 }
        add(URLOption(["min-width", "mw"], "%width", ArgumentRange("width", StepRanges.side), cost: .geometry, test: "ImageURLTests.minimumsAndZoom")) { o, a throws(ImageURLError) in try a.need(1...1); o.minWidth = try a.size(0, "width") ?? 0 }
        add(URLOption(["min-height", "mh"], "%height", ArgumentRange("height", StepRanges.side), cost: .geometry, test: "ImageURLTests.minimumsAndZoom")) { o, a throws(ImageURLError) in try a.need(1...1); o.minHeight = try a.size(0, "height") ?? 0 }
        add(URLOption(["zoom", "z"], "%zoom_x_y or %zoom_x:%zoom_y", ArgumentRange("each factor", StepRanges.zoom, above: true), cost: .geometry, test: "ImageURLTests.minimumsAndZoom")) { o, a throws(ImageURLError) in
            // One factor for both sides, or one each.
            try a.need(1...2)
            guard let x = try a.number(0, "factor", StepRanges.zoom), x > 0 else { throw .init("option '\(a.name)': the factor must be above 0") }
            let y = try a.number(1, "factor", StepRanges.zoom) ?? x
            guard y > 0 else { throw .init("option '\(a.name)': the factor must be above 0") }
            (o.zoomX, o.zoomY) = (x, y)
        }
        add(URLOption(["dpr"], "%dpr", ArgumentRange("dpr", URLRanges.dpr, above: true), cost: .geometry, test: "ImageURLTests.dprPaddingBackgroundAndPixelate")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let ratio = try a.number(0, "ratio", URLRanges.dpr), ratio > 0 else { throw .init("option '\(a.name)': the ratio must be above 0") }
            o.dpr = ratio
        }
        add(URLOption(["enlarge", "el"], "%enlarge", cost: .geometry, test: "ResizeTests.neverEnlargesUnlessAsked")) { o, a throws(ImageURLError) in try a.need(1...1); o.enlarge = a.bool(0) ?? false }
        add(URLOption(["extend", "ex"], "%extend:%gravity", cost: .geometry, test: "ImageURLTests.extendAndCornerGravities")) { o, a throws(ImageURLError) in o.extend = try a.extend() }
        add(URLOption(["extend_aspect_ratio", "extend_ar", "exar"], "%extend:%gravity", cost: .geometry, test: "ImageURLTests.extendAndCornerGravities")) { o, a throws(ImageURLError) in o.extendAspectRatio = try a.extend() }
        add(URLOption(["gravity", "g"], "%type:%x_offset:%y_offset", ArgumentRange("offsets", StepRanges.offset), ArgumentRange("a focus point's", StepRanges.fraction), cost: .geometry, limit: "its object gravities (obj, objw) find faces only: the detector is dlib's face detector, not a YOLO network", test: "ImageURLTests.gravityOffsetsFocusPointsAndCropSides")) { o, a throws(ImageURLError) in
            try a.need(1...(a.values.first?.hasPrefix("obj") == true ? 1 + 2 * ObjectClasses.maxEntries : 3))
            o.gravity = try a.gravity(from: 0, allowed: .crop) ?? .centre
        }
        add(URLOption(["crop", "c"], "%width:%height:%gravity", ArgumentRange("width", StepRanges.side), ArgumentRange("height", StepRanges.side), cost: .geometry, test: "ImageURLTests.gravityOffsetsFocusPointsAndCropSides")) { o, a throws(ImageURLError) in
            // A width alone keeps the whole height; 0 is the whole side.
            try a.need(1...(a.values.count > 2 && a.values[2].hasPrefix("obj") ? 3 + 2 * ObjectClasses.maxEntries : 5))
            let w = try a.number(0, "width", StepRanges.side) ?? 0, h = try a.number(1, "height", StepRanges.side) ?? 0
            o.crop = w == 0 && h == 0 ? nil : Crop(width: w, height: h, gravity: try a.gravity(from: 2, allowed: .crop))
        }
        add(URLOption(["trim", "t"], "%threshold:%color:%equal_hor:%equal_ver", ArgumentRange("threshold", StepRanges.trimThreshold), cost: .pixels, test: "ImageURLTests.trimComesFirst")) { o, a throws(ImageURLError) in
            // trim:THRESHOLD:COLOUR:EQUAL_HOR:EQUAL_VER; no threshold is off,
            // 0 cuts the exact colour.
            try a.need(1...4)
            guard let threshold = try a.number(0, "threshold", StepRanges.trimThreshold) else {
                o.trim = nil
                return
            }
            o.trim = Trim(threshold: threshold, colour: try a.colour(1), equalHorizontal: a.bool(2) ?? false, equalVertical: a.bool(3) ?? false)
        }
        add(URLOption(["padding", "pd"], "%top:%right:%bottom:%left", ArgumentRange("each side", StepRanges.side), cost: .geometry, test: "ImageURLTests.dprPaddingBackgroundAndPixelate")) { o, a throws(ImageURLError) in
            // CSS's order; right falls back to top, bottom to top, left to right.
            try a.need(1...4)
            let top = try a.size(0, "top") ?? 0
            let right = try a.size(1, "right") ?? top
            o.padding = Frame.Padding(top: top, right: right, bottom: try a.size(2, "bottom") ?? top, left: try a.size(3, "left") ?? right)
        }
        add(URLOption(["auto_rotate", "ar"], "%auto_rotate", cost: .geometry, test: "OrientationTests.autoRotateCanBeTurnedOff")) { o, a throws(ImageURLError) in try a.need(1...1); o.autoRotate = a.bool(0) ?? true }
        add(URLOption(["rotate", "rot"], "%angle", ArgumentRange("angle, a multiple of 90,", URLRanges.rotation), cost: .geometry, test: "ImageURLTests.rotateAndFlipComeBeforeSizes")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let degrees = Int(a.values[0]), URLRanges.rotation.contains(degrees), degrees % 90 == 0 else {
                throw .init("option '\(a.name)': '\(a.values[0])' is not a multiple of 90 degrees")
            }
            o.rotate = (degrees % 360 + 360) % 360
        }
        add(URLOption(["flip", "fl"], "%horizontal:%vertical", cost: .geometry, test: "ImageURLTests.rotateAndFlipComeBeforeSizes")) { o, a throws(ImageURLError) in
            try a.need(0...2)
            if let horizontal = a.bool(0) { o.flipHorizontal = horizontal }
            if let vertical = a.bool(1) { o.flipVertical = vertical }
        }
        add(URLOption(["background", "bg"], "%R:%G:%B or %hex_color", ArgumentRange("R, G and B", RGBColour.channel), cost: .pixels, test: "ImageURLTests.dprPaddingBackgroundAndPixelate")) { o, a throws(ImageURLError) in
            switch a.values.count {
            case 1 where a.values[0].isEmpty: o.background = nil
            case 1:
                o.background = try a.colour(0)
            case 3:
                guard let r = try a.size(0, "red"), let g = try a.size(1, "green"), let b = try a.size(2, "blue"),
                      let colour = RGBColour(red: r, green: g, blue: b)
                else { throw .init("option '\(a.name)': red, green and blue must each be from 0 to 255") }
                o.background = colour
            default: throw .init("option '\(a.name)' takes a hex colour or red:green:blue")
            }
        }
        add(URLOption(["blur", "bl"], "%sigma", ArgumentRange("sigma", StepRanges.blurSigma), cost: .kernel, difference: "capped by the image's size: a 400 names the largest sigma allowed (resize first), so one URL cannot hold a worker for minutes", test: "WorkLimitsTests.blurAndSharpenCostIsBoundedByTheImageSize")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.blur = try a.number(0, "sigma", StepRanges.blurSigma)
            if o.blur == 0 { o.blur = nil }
        }
        add(URLOption(["sharpen", "sh"], "%sigma", ArgumentRange("sigma", StepRanges.sharpenSigma), cost: .kernel, difference: "capped by the image's size, as blur is", test: "WorkLimitsTests.blurAndSharpenCostIsBoundedByTheImageSize")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.sharpen = try a.number(0, "sigma", StepRanges.sharpenSigma)
            if o.sharpen == 0 { o.sharpen = nil }
        }
        add(URLOption(["pixelate", "pix"], "%size", ArgumentRange("size", StepRanges.pixelateSize), cost: .pixels, test: "ImageURLTests.dprPaddingBackgroundAndPixelate")) { o, a throws(ImageURLError) in try a.need(1...1); o.pixelate = try a.whole(0, "size", StepRanges.pixelateSize) ?? 0 }
        add(URLOption(["watermark", "wm"], "%opacity:%position:%x_offset:%y_offset:%scale", ArgumentRange("opacity", StepRanges.fraction), ArgumentRange("offsets", StepRanges.offset), ArgumentRange("tiles' spacing", StepRanges.watermarkSpacing), ArgumentRange("scale", StepRanges.watermarkScale), cost: .pixels, test: "ImageURLTests.watermarkComesLast")) { o, a throws(ImageURLError) in
            // wm:OPACITY:POSITION:X:Y:SCALE; an opacity of 0 is off.
            try a.need(1...7)
            guard let opacity = try a.number(0, "opacity", StepRanges.fraction) else { throw .init("option '\(a.name)' needs an opacity (0 to 1)") }
            // `re` tiles the mark; Pro's `ch` as a chessboard.
            let chessboard = a.text(1) == "ch"
            let replicate = a.text(1) == "re" || chessboard
            var gravity = Gravity.centre
            if replicate {
                gravity.x = try a.number(2, "spacing", StepRanges.watermarkSpacing) ?? 0
                gravity.y = try a.number(3, "spacing", StepRanges.watermarkSpacing) ?? 0
            } else if a.text(1) != nil {
                gravity = try a.gravity(from: 1, count: 3, allowed: .watermark) ?? .centre
            } else {
                gravity.x = try a.number(2, "offset", StepRanges.offset) ?? 0
                gravity.y = try a.number(3, "offset", StepRanges.offset) ?? 0
            }
            let scale = try a.number(4, "scale", StepRanges.watermarkScale) ?? 0
            o.watermark = opacity == 0 ? nil : WatermarkPlacement(opacity: opacity, gravity: gravity, replicate: replicate, scale: scale,
                                                                  chessboard: chessboard)
        }
        add(URLOption(["watermark_text", "wmt"], "%text", cost: .pixels, pro: true, test: "ImageURLTests.watermarkText")) { o, a throws(ImageURLError) in
            // Base64url-encoded UTF-8; empty clears it.
            try a.need(0...1)
            guard let text = try a.encodedText(0, "text") else {
                o.watermarkText = nil
                return
            }
            guard Watermark.isValidText(text) else { throw .init("option '\(a.name)': \(Watermark.textRule)") }
            o.watermarkText = text
        }
        add(URLOption(["page", "pg"], "%page", ArgumentRange("page", StepRanges.page), cost: .child, pro: true, test: "ImageURLTests.pagesAsPro")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.pageSelection.first = try a.whole(0, "page", StepRanges.page) ?? 0
        }
        add(URLOption(["video_thumbnail_second", "vts"], "%second", ArgumentRange("second", VideoThumbnails.seconds), cost: .child, pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.videoSecond = try a.number(0, "second", VideoThumbnails.seconds)
        }
        add(URLOption(["video_thumbnail_keyframes", "vtk"], "%keyframes", cost: .child, pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.videoKeyframes = a.bool(0)
        }
        add(URLOption(["video_thumbnail_tile", "vtt"], "%step:%columns:%rows:%tile_width:%tile_height:%extend_tile:%trim:%fill:%focus_x:%focus_y", ArgumentRange("columns and rows", 0...VideoSprite.maxFrames), ArgumentRange("tile sides", VideoSprite.sides), cost: .child, pro: true, test: "VideoServingTests.spritesAndAnimationsByImgproxysGrammar")) { o, a throws(ImageURLError) in
            try a.need(5...10)
            let columns = try a.whole(1, "columns", 0...VideoSprite.maxFrames) ?? 0, rows = try a.whole(2, "rows", 0...VideoSprite.maxFrames) ?? 0
            o.videoSprite = try a.videoSprite(.tiles(columns: columns, rows: rows))
        }
        add(URLOption(["video_thumbnail_animation", "vta"], "%step:%delay:%frames:%frame_width:%frame_height:%extend_frame:%trim:%fill:%focus_x:%focus_y", ArgumentRange("delay", VideoSprite.delays), ArgumentRange("frames", 0...VideoSprite.maxFrames), ArgumentRange("frame sides", VideoSprite.sides), cost: .child, pro: true, test: "VideoServingTests.spritesAndAnimationsByImgproxysGrammar")) { o, a throws(ImageURLError) in
            try a.need(5...10)
            let delay = try a.whole(1, "delay", VideoSprite.delays) ?? 0, frames = try a.whole(2, "frames", 0...VideoSprite.maxFrames) ?? 0
            o.videoSprite = try a.videoSprite(.animation(delay: delay, frames: frames))
        }
        add(URLOption(["pages", "pgs"], "%pages", ArgumentRange("pages", 1...PageSelection.maxCount), cost: .child, pro: true, test: "ImageURLTests.pagesAsPro")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.pageSelection.count = try a.whole(0, "page count", 1...PageSelection.maxCount) ?? 1
        }
        add(URLOption(["disable_animation", "da"], "%disable", cost: .none, pro: true, test: "ImageURLTests.pagesAsPro")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.pageSelection.disableAnimation = a.bool(0) ?? false
        }
        add(URLOption(["autoquality", "aq"], "%method:%target:%min_quality:%max_quality:%allowed_error", cost: .encodes, pro: true, test: "ImageURLTests.autoqualityAsPro")) { o, a throws(ImageURLError) in
            o.autoquality = try AutoqualityOverride.parse(a.values, name: a.name)
        }
        add(URLOption(["watermark_size", "wms"], "%width:%height", ArgumentRange("width", StepRanges.side), ArgumentRange("height", StepRanges.side), cost: .pixels, pro: true, test: "ImageURLTests.watermarkSizeTurnAndShadowAsPro")) { o, a throws(ImageURLError) in
            try a.need(1...2)
            o.watermarkWidth = try a.size(0, "width") ?? 0
            o.watermarkHeight = try a.size(1, "height") ?? 0
        }
        add(URLOption(["watermark_rotate", "wm_rot", "wmr"], "%angle", ArgumentRange("angle", StepRanges.watermarkAngle), cost: .pixels, pro: true, test: "ImageURLTests.watermarkSizeTurnAndShadowAsPro")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.watermarkRotation = try a.number(0, "angle", StepRanges.watermarkAngle) ?? 0
        }
        add(URLOption(["watermark_shadow", "wmsh"], "%sigma", ArgumentRange("sigma", StepRanges.shadowSigma), cost: .kernel, pro: true, test: "ImageURLTests.watermarkSizeTurnAndShadowAsPro")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.watermarkShadow = try a.number(0, "sigma", StepRanges.shadowSigma) ?? 0
        }
        add(URLOption(["watermark_url", "wmu"], "%url", cost: .secondImage, pro: true, test: "ImageURLTests.watermarkURL")) { o, a throws(ImageURLError) in
            // A base64url-encoded URL; empty clears it.
            try a.need(0...1)
            o.watermarkURL = try a.encodedSourceURL(0)
        }
        add(URLOption(["strip_metadata", "sm"], "%strip_metadata", cost: .none, test: "ImageURLTests.metadataOptions")) { o, a throws(ImageURLError) in try a.need(1...1); o.stripMetadata = a.bool(0) ?? true }
        add(URLOption(["keep_copyright", "kcr"], "%keep_copyright", cost: .none, test: "ImageURLTests.metadataOptions")) { o, a throws(ImageURLError) in try a.need(1...1); o.keepCopyright = a.bool(0) ?? true }
        add(URLOption(["strip_color_profile", "scp"], "%strip_color_profile", cost: .pixels, test: "ImageURLTests.metadataOptions")) { o, a throws(ImageURLError) in try a.need(1...1); o.stripColourProfile = a.bool(0) ?? true }
        add(URLOption(["enforce_thumbnail", "eth"], "%enforce_thumbnail", cost: .geometry, test: "ImageURLTests.enforceThumbnailAndJPEGXL")) { o, a throws(ImageURLError) in try a.need(1...1); o.enforceThumbnail = a.bool(0) ?? false }
        add(URLOption(["quality", "q"], "%quality", ArgumentRange("quality, or 0", StepRanges.quality), cost: .encoder, test: "ImageURLTests.everyOtherOption")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.quality = try a.quality(0)
        }
        add(URLOption(["format_quality", "fq"], "%format1:%quality1:%format2:%quality2:...:%formatN:%qualityN", ArgumentRange("each quality, or 0", StepRanges.quality), cost: .encoder, test: "ImageURLTests.formatQuality")) { o, a throws(ImageURLError) in
            // Pairs of format and quality; an empty list clears them.
            guard a.values.count.isMultiple(of: 2) else { throw .init("option '\(a.name)' takes pairs of format and quality (fq:jpg:70:webp:60)") }
            if a.values.allSatisfy(\.isEmpty) {
                o.formatQuality = [:]
                return
            }
            for pair in stride(from: 0, to: a.values.count, by: 2) {
                guard let format = ImageFormat(name: a.values[pair].lowercased()), format.canEncode else {
                    throw .init("option '\(a.name)': cannot write '\(a.values[pair])' images (jpg, png, webp, avif, heic, gif, tiff, bmp, ico, jxl)")
                }
                let q = try a.quality(pair + 1)
                o.formatQuality[format] = q == 0 ? nil : q
            }
        }
        add(URLOption(["max_bytes", "mb"], "%bytes", ArgumentRange("bytes", URLRanges.resultBytes), cost: .encodes, test: "ImageURLTests.maxBytes")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.maxBytes = try a.required(a.whole(0, "bytes", URLRanges.resultBytes), "a number of bytes")
        }
        add(URLOption(["format", "f", "ext"], "%extension", cost: .encoder, test: "ImageURLTests.everyOtherOption")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.format = a.values[0].lowercased()
        }
        add(URLOption(["skip_processing", "skp"], "%extension1:%extension2:...:%extensionN", cost: .none, test: "ImageURLTests.skipProcessing")) { o, a throws(ImageURLError) in
            var formats: Set<ImageFormat> = []
            for text in a.values where !text.isEmpty {
                // A PDF is always drawn: never passed on as it came.
                guard let format = ImageFormat(name: text.lowercased()), format != .pdf, format != .video else {
                    throw .init("option '\(a.name)': '\(text)' is not an image format")
                }
                formats.insert(format)
            }
            o.skipProcessing = formats
        }
        add(URLOption(["raw"], "%raw", cost: .none, difference: "the source's size, type and header limits are still checked, so only images pass", test: "RouterTests.rawAnswersTheSourceAsItCame")) { o, a throws(ImageURLError) in try a.need(1...1); o.raw = a.bool(0) ?? false }
        add(URLOption(["cachebuster", "cb"], "%string", cost: .none, test: "ImageURLTests.everyOtherOption")) { o, a throws(ImageURLError) in try a.need(1...1); o.cachebuster = a.values[0] }
        add(URLOption(["filename", "fn"], "%filename:%encoded", cost: .none, test: "ImageURLTests.fileNameAndAttachment")) { o, a throws(ImageURLError) in
            // The name, or with a true second argument its base64url form.
            try a.need(1...2)
            var text = a.values[0].removingPercentEncoding ?? a.values[0]
            if a.bool(1) == true {
                guard let data = Data(base64URLEncoded: a.values[0]), let decoded = String(data: data, encoding: .utf8) else {
                    throw .init("option '\(a.name)': '\(a.values[0])' is not a base64url-encoded UTF-8 name")
                }
                text = decoded
            }
            guard !text.isEmpty, text.count <= 255, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                  !text.contains("/")
            else { throw .init("option '\(a.name)': a file name is 1 to 255 characters, without '/' or control characters") }
            o.filename = text
        }
        add(URLOption(["return_attachment", "att"], "%return_attachment", cost: .none, test: "ImageURLTests.fileNameAndAttachment")) { o, a throws(ImageURLError) in try a.need(1...1); o.returnAttachment = a.bool(0) ?? false }
        add(URLOption(["max_src_resolution", "msr"], "%resolution", ArgumentRange("megapixels", URLRanges.megapixels), cost: .none, test: "InfoURLTests.badInfoOptionsAreRefusedWithTheirReason")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxSourcePixels = Int((try a.number(0, "megapixels", URLRanges.megapixels) ?? 0) * 1_000_000)
        }
        add(URLOption(["max_src_file_size", "msfs"], "%size", ArgumentRange("bytes", URLRanges.sourceBytes), cost: .none, test: "SecurityAndInfoOptionsTests.securityOptionsFromURLsWhereAllowed")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxSourceBytes = try a.required(a.whole(0, "bytes", URLRanges.sourceBytes), "a number of bytes")
        }
        add(URLOption(["max_animation_frames", "maf"], "%size", ArgumentRange("frames", StepRanges.side, above: true), cost: .none, test: "SecurityAndInfoOptionsTests.securityOptionsFromURLsWhereAllowed")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let frames = try a.size(0, "frames"), frames > 0 else { throw .init("option '\(a.name)': the frames must be above 0") }
            o.security.maxAnimationFrames = frames
        }
        add(URLOption(["max_animation_frame_resolution", "mafr"], "%size", ArgumentRange("megapixels", URLRanges.megapixels), cost: .none, test: "SecurityAndInfoOptionsTests.securityOptionsFromURLsWhereAllowed")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxAnimationFramePixels = Int((try a.number(0, "megapixels", URLRanges.megapixels) ?? 0) * 1_000_000)
        }
        add(URLOption(["max_result_dimension", "mrd"], "%size", ArgumentRange("pixels", StepRanges.side), cost: .none, difference: "a limit of 8192 a side is on by default, where imgproxy has none (a result past it is scaled down, as imgproxy's is when set); mrd:0 stands for 100,000 a side", test: "ProOptionsServingTests.aResultLimitOfZeroIsNoLimit")) { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxResultDimension = try a.size(0, "dimension")
        }
        add(URLOption(["sepia"], "%intensity", ArgumentRange("intensity", StepRanges.fraction), cost: .pixels, edition: .darkroom,
                      about: "a sepia tone of the given strength, the seeds' filter", test: "ImageURLTests.everyOtherOption")) { o, a throws(ImageURLError) in
            try a.need(0...1)
            o.sepia = try a.number(0, "intensity", StepRanges.fraction) ?? ImageOperation.defaultSepiaIntensity
        }
        add(URLOption(["grayscale"], "%grayscale", cost: .pixels, edition: .darkroom, about: "grey levels", test: "ImageURLTests.everyOtherOption")) { o, a throws(ImageURLError) in
            try a.need(0...1)
            o.grayscale = a.bool(0) ?? true
        }
        table.merge(encoderRules)
        table.merge(colourRules)
        table.merge(objectRules)
        table.merge(proRules)
        return table
    }()

    /// `size`'s arguments (and `resize`'s after its type): width, height,
    /// enlarge, then extend's.
    private mutating func applySize(_ a: inout Arguments) throws(ImageURLError) {
        if let w = try a.size(0, "width") { width = w }
        if let h = try a.size(1, "height") { height = h }
        if let e = a.bool(2) { enlarge = e }
        if a.text(3) != nil {
            var rest = a.dropping(3)
            extend = try rest.extend()
            a.warnings += rest.warnings
        }
    }

    static func resizingType(_ text: String) throws(ImageURLError) -> Resize.Mode {
        guard let mode = Resize.Mode(rawValue: text) else {
            throw .init("unknown resizing type '\(text)' (fit, fill, fill-down, force, auto)")
        }
        return mode
    }
}
