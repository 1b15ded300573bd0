import Darkroom
import Foundation

/// The parser: one rule per option name, as imgproxy's parser has them
/// (its argument counts, its lenient booleans, its gravity rules), every
/// number range-checked.
extension ImageURLOptions {
    typealias Rule = @Sendable (inout ImageURLOptions, inout Arguments) throws(ImageURLError) -> Void

    /// Rules, each under every name it has.
    struct RuleTable {
        var rules: [String: Rule] = [:]

        mutating func add(_ names: String..., rule: @escaping Rule) {
            for name in names { rules[name] = rule }
        }
    }

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
        guard let stamp = Int(arguments.values[0]), (-253_402_300_799...253_402_300_799).contains(stamp) else {
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
    static let rules: [String: Rule] = {
        var rules: [String: Rule] = [:]
        func add(_ names: String..., rule: @escaping Rule) {
            for name in names { rules[name] = rule }
        }
        add("resize", "rs") { o, a throws(ImageURLError) in
            try a.need(1...8)
            if let type = a.text(0) { o.resizingType = try resizingType(type) }
            var size = a.dropping(1)
            try o.applySize(&size)
            a.warnings += size.warnings
        }
        add("size", "s") { o, a throws(ImageURLError) in
            try a.need(1...7)
            try o.applySize(&a)
        }
        add("resizing_type", "rt") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.resizingType = try resizingType(a.values[0])
        }
        add("width", "w") { o, a throws(ImageURLError) in try a.need(1...1); o.width = try a.size(0, "width") ?? 0 }
        add("height", "h") { o, a throws(ImageURLError) in try a.need(1...1); o.height = try a.size(0, "height") ?? 0 }
        add("min-width", "mw") { o, a throws(ImageURLError) in try a.need(1...1); o.minWidth = try a.size(0, "width") ?? 0 }
        add("min-height", "mh") { o, a throws(ImageURLError) in try a.need(1...1); o.minHeight = try a.size(0, "height") ?? 0 }
        add("zoom", "z") { o, a throws(ImageURLError) in
            // One factor for both sides, or one each.
            try a.need(1...2)
            guard let x = try a.number(0, "factor", 0...100), x > 0 else { throw .init("option '\(a.name)': the factor must be above 0") }
            let y = try a.number(1, "factor", 0...100) ?? x
            guard y > 0 else { throw .init("option '\(a.name)': the factor must be above 0") }
            (o.zoomX, o.zoomY) = (x, y)
        }
        add("dpr") { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let ratio = try a.number(0, "ratio", 0...100), ratio > 0 else { throw .init("option '\(a.name)': the ratio must be above 0") }
            o.dpr = ratio
        }
        add("enlarge", "el") { o, a throws(ImageURLError) in try a.need(1...1); o.enlarge = a.bool(0) ?? false }
        add("extend", "ex") { o, a throws(ImageURLError) in o.extend = try a.extend() }
        add("extend_aspect_ratio", "extend_ar", "exar") { o, a throws(ImageURLError) in o.extendAspectRatio = try a.extend() }
        add("gravity", "g") { o, a throws(ImageURLError) in
            try a.need(1...(a.values.first?.hasPrefix("obj") == true ? 1 + 2 * ObjectClasses.maxEntries : 3))
            o.gravity = try a.gravity(from: 0, allowed: .crop) ?? .centre
        }
        add("crop", "c") { o, a throws(ImageURLError) in
            // A width alone keeps the whole height; 0 is the whole side.
            try a.need(1...(a.values.count > 2 && a.values[2].hasPrefix("obj") ? 3 + 2 * ObjectClasses.maxEntries : 5))
            let w = try a.number(0, "width", 0...100_000) ?? 0, h = try a.number(1, "height", 0...100_000) ?? 0
            o.crop = w == 0 && h == 0 ? nil : Crop(width: w, height: h, gravity: try a.gravity(from: 2, allowed: .crop))
        }
        add("trim", "t") { o, a throws(ImageURLError) in
            // trim:THRESHOLD:COLOUR:EQUAL_HOR:EQUAL_VER; no threshold is off,
            // 0 cuts the exact colour.
            try a.need(1...4)
            guard let threshold = try a.number(0, "threshold", StepRanges.trimThreshold) else {
                o.trim = nil
                return
            }
            o.trim = Trim(threshold: threshold, colour: try a.colour(1), equalHorizontal: a.bool(2) ?? false, equalVertical: a.bool(3) ?? false)
        }
        add("padding", "pd") { o, a throws(ImageURLError) in
            // CSS's order; right falls back to top, bottom to top, left to right.
            try a.need(1...4)
            let top = try a.size(0, "top") ?? 0
            let right = try a.size(1, "right") ?? top
            o.padding = Frame.Padding(top: top, right: right, bottom: try a.size(2, "bottom") ?? top, left: try a.size(3, "left") ?? right)
        }
        add("auto_rotate", "ar") { o, a throws(ImageURLError) in try a.need(1...1); o.autoRotate = a.bool(0) ?? true }
        add("rotate", "rot") { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let degrees = Int(a.values[0]), (-3600...3600).contains(degrees), degrees % 90 == 0 else {
                throw .init("option '\(a.name)': '\(a.values[0])' is not a multiple of 90 degrees")
            }
            o.rotate = (degrees % 360 + 360) % 360
        }
        add("flip", "fl") { o, a throws(ImageURLError) in
            try a.need(0...2)
            if let horizontal = a.bool(0) { o.flipHorizontal = horizontal }
            if let vertical = a.bool(1) { o.flipVertical = vertical }
        }
        add("background", "bg") { o, a throws(ImageURLError) in
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
        add("blur", "bl") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.blur = try a.number(0, "sigma", StepRanges.blurSigma)
            if o.blur == 0 { o.blur = nil }
        }
        add("sharpen", "sh") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.sharpen = try a.number(0, "sigma", StepRanges.sharpenSigma)
            if o.sharpen == 0 { o.sharpen = nil }
        }
        add("pixelate", "pix") { o, a throws(ImageURLError) in try a.need(1...1); o.pixelate = try a.whole(0, "size", StepRanges.pixelateSize) ?? 0 }
        add("watermark", "wm") { o, a throws(ImageURLError) in
            // wm:OPACITY:POSITION:X:Y:SCALE; an opacity of 0 is off.
            try a.need(1...7)
            guard let opacity = try a.number(0, "opacity", 0...1) else { throw .init("option '\(a.name)' needs an opacity (0 to 1)") }
            // `re` tiles the mark; Pro's `ch` as a chessboard.
            let chessboard = a.text(1) == "ch"
            let replicate = a.text(1) == "re" || chessboard
            var gravity = Gravity.centre
            if replicate {
                gravity.x = try a.number(2, "spacing", 0...10_000) ?? 0
                gravity.y = try a.number(3, "spacing", 0...10_000) ?? 0
            } else if a.text(1) != nil {
                gravity = try a.gravity(from: 1, count: 3, allowed: .watermark) ?? .centre
            } else {
                gravity.x = try a.number(2, "offset", -100_000...100_000) ?? 0
                gravity.y = try a.number(3, "offset", -100_000...100_000) ?? 0
            }
            let scale = try a.number(4, "scale", 0...100) ?? 0
            o.watermark = opacity == 0 ? nil : WatermarkPlacement(opacity: opacity, gravity: gravity, replicate: replicate, scale: scale,
                                                                  chessboard: chessboard)
        }
        add("watermark_text", "wmt") { o, a throws(ImageURLError) in
            // Base64url-encoded UTF-8; empty clears it.
            try a.need(0...1)
            guard let text = try a.encodedText(0, "text") else {
                o.watermarkText = nil
                return
            }
            guard Watermark.isValidText(text) else { throw .init("option '\(a.name)': \(Watermark.textRule)") }
            o.watermarkText = text
        }
        add("page", "pg") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.pageSelection.first = try a.whole(0, "page", 0...100_000) ?? 0
        }
        add("video_thumbnail_second", "vts") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.videoSecond = try a.number(0, "second", VideoThumbnails.seconds)
        }
        add("video_thumbnail_keyframes", "vtk") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.videoKeyframes = a.bool(0)
        }
        add("video_thumbnail_tile", "vtt") { o, a throws(ImageURLError) in
            try a.need(5...10)
            let columns = try a.whole(1, "columns", 0...VideoSprite.maxFrames) ?? 0, rows = try a.whole(2, "rows", 0...VideoSprite.maxFrames) ?? 0
            o.videoSprite = try a.videoSprite(.tiles(columns: columns, rows: rows))
        }
        add("video_thumbnail_animation", "vta") { o, a throws(ImageURLError) in
            try a.need(5...10)
            let delay = try a.whole(1, "delay", VideoSprite.delays) ?? 0, frames = try a.whole(2, "frames", 0...VideoSprite.maxFrames) ?? 0
            o.videoSprite = try a.videoSprite(.animation(delay: delay, frames: frames))
        }
        add("pages", "pgs") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.pageSelection.count = try a.whole(0, "page count", 1...PageSelection.maxCount) ?? 1
        }
        add("disable_animation", "da") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.pageSelection.disableAnimation = a.bool(0) ?? false
        }
        add("autoquality", "aq") { o, a throws(ImageURLError) in
            o.autoquality = try AutoqualityOverride.parse(a.values, name: a.name)
        }
        add("watermark_size", "wms") { o, a throws(ImageURLError) in
            try a.need(1...2)
            o.watermarkWidth = try a.size(0, "width") ?? 0
            o.watermarkHeight = try a.size(1, "height") ?? 0
        }
        add("watermark_rotate", "wm_rot", "wmr") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.watermarkRotation = try a.number(0, "angle", -360...360) ?? 0
        }
        add("watermark_shadow", "wmsh") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.watermarkShadow = try a.number(0, "sigma", 0...100) ?? 0
        }
        add("watermark_url", "wmu") { o, a throws(ImageURLError) in
            // A base64url-encoded URL; empty clears it.
            try a.need(0...1)
            o.watermarkURL = try a.encodedSourceURL(0)
        }
        add("strip_metadata", "sm") { o, a throws(ImageURLError) in try a.need(1...1); o.stripMetadata = a.bool(0) ?? true }
        add("keep_copyright", "kcr") { o, a throws(ImageURLError) in try a.need(1...1); o.keepCopyright = a.bool(0) ?? true }
        add("strip_color_profile", "scp") { o, a throws(ImageURLError) in try a.need(1...1); o.stripColourProfile = a.bool(0) ?? true }
        add("enforce_thumbnail", "eth") { o, a throws(ImageURLError) in try a.need(1...1); o.enforceThumbnail = a.bool(0) ?? false }
        add("quality", "q") { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let q = try a.size(0, "quality"), q <= 100 else { throw .init("option '\(a.name)': quality must be from 0 to 100") }
            o.quality = q
        }
        add("format_quality", "fq") { o, a throws(ImageURLError) in
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
                guard let q = try a.size(pair + 1, "quality"), q <= 100 else { throw .init("option '\(a.name)': quality must be from 0 to 100") }
                o.formatQuality[format] = q == 0 ? nil : q
            }
        }
        add("max_bytes", "mb") { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let bytes = Int(a.values[0]), (0...1_000_000_000).contains(bytes) else {
                throw .init("option '\(a.name)': '\(a.values[0])' is not a whole number of bytes from 0 to 1000000000")
            }
            o.maxBytes = bytes
        }
        add("format", "f", "ext") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.format = a.values[0].lowercased()
        }
        add("skip_processing", "skp") { o, a throws(ImageURLError) in
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
        add("raw") { o, a throws(ImageURLError) in try a.need(1...1); o.raw = a.bool(0) ?? false }
        add("cachebuster", "cb") { o, a throws(ImageURLError) in try a.need(1...1); o.cachebuster = a.values[0] }
        add("filename", "fn") { o, a throws(ImageURLError) in
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
        add("return_attachment", "att") { o, a throws(ImageURLError) in try a.need(1...1); o.returnAttachment = a.bool(0) ?? false }
        add("max_src_resolution", "msr") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxSourcePixels = Int((try a.number(0, "megapixels", 0...10_000) ?? 0) * 1_000_000)
        }
        add("max_src_file_size", "msfs") { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let bytes = Int(a.values[0]), (0...10_000_000_000).contains(bytes) else {
                throw .init("option '\(a.name)': '\(a.values[0])' is not a whole number of bytes from 0 to 10000000000")
            }
            o.security.maxSourceBytes = bytes
        }
        add("max_animation_frames", "maf") { o, a throws(ImageURLError) in
            try a.need(1...1)
            guard let frames = try a.size(0, "frames"), frames > 0 else { throw .init("option '\(a.name)': the frames must be above 0") }
            o.security.maxAnimationFrames = frames
        }
        add("max_animation_frame_resolution", "mafr") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxAnimationFramePixels = Int((try a.number(0, "megapixels", 0...10_000) ?? 0) * 1_000_000)
        }
        add("max_result_dimension", "mrd") { o, a throws(ImageURLError) in
            try a.need(1...1)
            o.security.maxResultDimension = try a.size(0, "dimension")
        }
        add("sepia") { o, a throws(ImageURLError) in
            try a.need(0...1)
            o.sepia = try a.number(0, "intensity", StepRanges.fraction) ?? ImageOperation.defaultSepiaIntensity
        }
        add("grayscale") { o, a throws(ImageURLError) in
            try a.need(0...1)
            o.grayscale = a.bool(0) ?? true
        }
        rules.merge(encoderRules) { $1 }
        rules.merge(colourRules) { $1 }
        rules.merge(objectRules) { $1 }
        rules.merge(proRules) { $1 }
        return rules
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
