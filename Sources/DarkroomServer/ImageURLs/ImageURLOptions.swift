import Crypto
public import Darkroom
public import Foundation

/// The processing options of an image URL, in imgproxy's names: `rs`/`resize`,
/// `s`/`size`, `rt`/`resizing_type`, `w`/`width`, `h`/`height`, `g`/`gravity`,
/// `c`/`crop`, `q`/`quality`, `f`/`format`/`ext`, `bl`/`blur`, `sh`/`sharpen`,
/// `ar`/`auto_rotate`, `el`/`enlarge`, `cb`/`cachebuster`, `exp`/`expires`,
/// `pr`/`preset`, `rot`/`rotate`, `fl`/`flip`, `dpr`, `pd`/`padding`,
/// `bg`/`background`, `pix`/`pixelate`, `mw`/`min-width`, `mh`/`min-height`,
/// `z`/`zoom`, `t`/`trim`, `sm`/`strip_metadata`, `kcr`/`keep_copyright`,
/// `scp`/`strip_color_profile`, `wm`/`watermark`, `ex`/`extend`, `exar`/`extend_aspect_ratio`,
/// `fq`/`format_quality`, `mb`/`max_bytes`, `skp`/`skip_processing`, `raw`, `fn`/`filename`, `att`/`return_attachment`, `eth`/`enforce_thumbnail`, `wmt`/`watermark_text`, `wmu`/`watermark_url`; and Darkroom's own
/// `sepia:{intensity}` and `grayscale`.
public struct ImageURLOptions: Sendable, Hashable {
    public var resizingType: Resize.Mode = .fit
    public var width = 0
    public var height = 0
    public var enlarge = false
    /// A canvas of the asked size around a smaller result (`ex`), or of its
    /// aspect ratio (`exar`), placed by its own gravity.
    public var extend: Extend?
    /// The result at least this wide or high (before `dpr`); 0: no minimum.
    public var minWidth = 0
    public var minHeight = 0
    /// Multiplies the result's sides, after the box (imgproxy's `zoom`).
    public var zoomX = 1.0
    public var zoomY = 1.0
    public var gravity: Gravity = .centre
    public var crop: Crop?
    public var quality = 0
    /// Per output format, over `quality` (`fq`).
    public var formatQuality: [ImageFormat: Int] = [:]
    /// The most bytes of a JPEG, WebP or AVIF answer (`mb`); 0: no limit.
    public var maxBytes = 0
    /// Source formats answered unprocessed (`skp`).
    public var skipProcessing: Set<ImageFormat> = []
    /// Drop EXIF, XMP and IPTC (`sm`), but the EXIF copyright (`kcr`); turn
    /// other ICC profiles into sRGB and drop them (`scp`). All on by
    /// default, as imgproxy's.
    public var stripMetadata = true
    public var keepCopyright = true
    public var stripColourProfile = true
    /// The source answered as it came, whatever the format asked or
    /// accepted (`raw`); its size, type and header limits are still checked.
    public var raw = false
    /// An AVIF or HEIC source's embedded thumbnail used in place of the
    /// image, where it has one (`eth`).
    public var enforceThumbnail = false
    public var format: String?
    public var blur: Double?
    public var sharpen: Double?
    public var autoRotate = true
    public var cachebuster: String?
    /// When the URL stops being valid (`exp`), if it says.
    public var expires: Date?
    public var sepia: Double?
    public var grayscale = false
    /// Clockwise, a multiple of 90; applied after the EXIF orientation and
    /// before sizes are measured (imgproxy swaps width and height for 90
    /// and 270 the same way).
    public var rotate = 0
    public var flipHorizontal = false
    public var flipVertical = false
    /// Device pixel ratio: sizes and padding are multiplied by it.
    public var dpr = 1.0
    /// Before `dpr`.
    public var padding: Padding?
    /// Transparency and padding filled with this colour.
    public var background: RGBColour?
    public var pixelate = 0
    /// A border of one colour cut away first (`t`).
    public var trim: Trim?
    /// The server's watermark laid over the result (`wm`).
    public var watermark: WatermarkPlacement?
    /// Text laid over the result in the watermark's place (`wmt`, from
    /// imgproxy's Pro edition): `wm` still says where and how.
    public var watermarkText: String?
    /// An image fetched as sources are (the same allow-list and limits)
    /// laid over the result in the server's watermark's place (`wmu`, from
    /// imgproxy's Pro edition).
    public var watermarkURL: URL?
    /// The answer's file name, without extension (`fn`).
    public var filename: String?
    /// Content-Disposition: attachment rather than inline (`att`).
    public var returnAttachment = false

    public struct Extend: Sendable, Hashable {
        public var aspectOnly: Bool
        public var gravity: Gravity
    }

    public struct WatermarkPlacement: Sendable, Hashable {
        public var opacity: Double
        /// A side, a corner or the centre with offsets; with `replicate`,
        /// the offsets are the space between tiles.
        public var gravity: Gravity
        public var replicate: Bool
        /// The watermark's width as a fraction of the result's; 0: its own.
        public var scale: Double
    }

    public struct Trim: Sendable, Hashable {
        public var threshold: Double
        /// nil: the top-left pixel's colour.
        public var colour: RGBColour?
        public var equalHorizontal: Bool
        public var equalVertical: Bool
    }

    public struct Padding: Sendable, Hashable {
        public var top: Int
        public var right: Int
        public var bottom: Int
        public var left: Int
    }

    /// A region cut before resizing; its own gravity, or the URL's. A side
    /// from 1 up is in pixels, below 1 a fraction of the source's, 0 all
    /// of it.
    public struct Crop: Sendable, Hashable {
        public var width: Double
        public var height: Double
        public var gravity: Gravity?
    }

    init() {}

    /// The options of `segments`, after the `default` preset when there is
    /// one (as imgproxy: the URL's own options override it).
    init(segments: [String], presets: [String: String], now: Date) throws(ImageURLError) {
        if presets[Self.defaultPreset] != nil {
            try apply("pr:\(Self.defaultPreset)", presets: presets, now: now, using: [])
        }
        for segment in segments {
            try apply(segment, presets: presets, now: now, using: [])
        }
    }

    /// The preset applied to every URL, when it is defined.
    static let defaultPreset = "default"

    /// Checks every preset as a URL would use it, so that a server with a
    /// bad one stops at start rather than refusing its URLs.
    static func check(presets: [String: String]) throws(ImageURLError) {
        for name in presets.keys.sorted() {
            guard !name.isEmpty, !name.contains(":"), !name.contains("/") else {
                throw .init("preset name '\(name)' is empty or has ':' or '/'")
            }
            var options = ImageURLOptions()
            do {
                try options.apply("pr:\(name)", presets: presets, now: Date(), using: [])
            } catch {
                throw .init("preset '\(name)': \(error.message)")
            }
        }
    }

    /// - Parameter using: the presets this segment comes from, innermost
    ///   last: a preset met again among them is skipped, as imgproxy does.
    private mutating func apply(_ segment: String, presets: [String: String], now: Date, using: [String]) throws(ImageURLError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0], args = Array(parts.dropFirst())
        func arg(_ i: Int) -> String? { i < args.count && !args[i].isEmpty ? args[i] : nil }
        func int(_ i: Int, _ what: String) throws(ImageURLError) -> Int? {
            guard let text = arg(i) else { return nil }
            guard let value = Int(text), value >= 0, value <= 100_000 else { throw .init("option '\(name)': \(what) '\(text)' is not a whole number from 0 to 100000") }
            return value
        }
        func number(_ i: Int, _ what: String, _ range: ClosedRange<Double>) throws(ImageURLError) -> Double? {
            guard let text = arg(i) else { return nil }
            guard let value = Double(text), range.contains(value) else { throw .init("option '\(name)': \(what) '\(text)' is not a number from \(range.lowerBound) to \(range.upperBound)") }
            return value
        }
        func bool(_ i: Int) throws(ImageURLError) -> Bool? {
            guard let text = arg(i) else { return nil }
            switch text.lowercased() {
            case "1", "t", "true": return true
            case "0", "f", "false": return false
            default: throw .init("option '\(name)': '\(text)' is not a boolean (1, t, true, 0, f, false)")
            }
        }
        func need(_ count: ClosedRange<Int>) throws(ImageURLError) {
            guard count.contains(args.count) else { throw .init("option '\(name)' takes \(count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)") argument(s), not \(args.count)") }
        }

        switch name {
        case "rs", "resize":
            try need(1...5)
            if let type = arg(0) { resizingType = try Self.resizingType(type) }
            if let w = try int(1, "width") { width = w }
            if let h = try int(2, "height") { height = h }
            if let e = try bool(3) { enlarge = e }
            if let x = try bool(4) { extend = x ? Extend(aspectOnly: false, gravity: extend?.gravity ?? .centre) : nil }
        case "s", "size":
            try need(1...4)
            if let w = try int(0, "width") { width = w }
            if let h = try int(1, "height") { height = h }
            if let e = try bool(2) { enlarge = e }
            if let x = try bool(3) { extend = x ? Extend(aspectOnly: false, gravity: extend?.gravity ?? .centre) : nil }
        case "ex", "extend", "exar", "extend_aspect_ratio":
            try need(1...4)
            let on = try bool(0) ?? false
            let gravity = try Self.gravity(Array(args.dropFirst()), option: name) ?? .centre
            guard gravity.kind != .smart, gravity.kind != .focusPoint else { throw .init("option '\(name)': an extend's gravity is a side, a corner or ce") }
            extend = on ? Extend(aspectOnly: name.hasPrefix("exar") || name == "extend_aspect_ratio", gravity: gravity) : nil
        case "rt", "resizing_type":
            try need(1...1)
            resizingType = try Self.resizingType(args[0])
        case "w", "width":
            try need(1...1)
            width = try int(0, "width") ?? 0
        case "h", "height":
            try need(1...1)
            height = try int(0, "height") ?? 0
        case "mw", "min-width":
            try need(1...1)
            minWidth = try int(0, "width") ?? 0
        case "mh", "min-height":
            try need(1...1)
            minHeight = try int(0, "height") ?? 0
        case "z", "zoom":
            // One factor for both sides, or one each.
            try need(1...2)
            guard let x = try number(0, "factor", 0...100), x > 0 else { throw .init("option '\(name)': the factor must be above 0") }
            let y = try number(1, "factor", 0...100) ?? x
            guard y > 0 else { throw .init("option '\(name)': the factor must be above 0") }
            (zoomX, zoomY) = (x, y)
        case "fn", "filename":
            // The name, or with a true second argument its base64url form.
            try need(1...2)
            var text = args[0].removingPercentEncoding ?? args[0]
            if try bool(1) == true {
                guard let data = Data(base64URLEncoded: args[0]), let decoded = String(data: data, encoding: .utf8) else {
                    throw .init("option '\(name)': '\(args[0])' is not a base64url-encoded UTF-8 name")
                }
                text = decoded
            }
            guard !text.isEmpty, text.count <= 255, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                  !text.contains("/")
            else { throw .init("option '\(name)': a file name is 1 to 255 characters, without '/' or control characters") }
            filename = text
        case "att", "return_attachment":
            try need(1...1)
            returnAttachment = try bool(0) ?? false
        case "el", "enlarge":
            try need(1...1)
            enlarge = try bool(0) ?? false
        case "g", "gravity":
            try need(1...3)
            gravity = try Self.gravity(args, option: name) ?? .centre
        case "c", "crop":
            // A width alone keeps the whole height; 0 is the whole side.
            try need(1...5)
            let w = try number(0, "width", 0...100_000) ?? 0, h = try number(1, "height", 0...100_000) ?? 0
            crop = w == 0 && h == 0 ? nil : Crop(width: w, height: h, gravity: try Self.gravity(Array(args.dropFirst(2)), option: name))
        case "q", "quality":
            try need(1...1)
            guard let q = try int(0, "quality"), q <= 100 else { throw .init("option '\(name)': quality must be from 0 to 100") }
            quality = q
        case "skp", "skip_processing":
            skipProcessing = []
            for text in args where !text.isEmpty {
                guard let format = ImageFormat(name: text.lowercased()) else { throw .init("option '\(name)': '\(text)' is not an image format") }
                skipProcessing.insert(format)
            }
        case "sm", "strip_metadata":
            try need(1...1)
            stripMetadata = try bool(0) ?? true
        case "kcr", "keep_copyright":
            try need(1...1)
            keepCopyright = try bool(0) ?? true
        case "scp", "strip_color_profile":
            try need(1...1)
            stripColourProfile = try bool(0) ?? true
        case "raw":
            try need(1...1)
            raw = try bool(0) ?? false
        case "eth", "enforce_thumbnail":
            try need(1...1)
            enforceThumbnail = try bool(0) ?? false
        case "mb", "max_bytes":
            try need(1...1)
            guard let bytes = Int(args[0]), (0...1_000_000_000).contains(bytes) else {
                throw .init("option '\(name)': '\(args[0])' is not a whole number of bytes from 0 to 1000000000")
            }
            maxBytes = bytes
        case "fq", "format_quality":
            // Pairs of format and quality; an empty list clears them.
            guard args.count.isMultiple(of: 2) else { throw .init("option '\(name)' takes pairs of format and quality (fq:jpg:70:webp:60)") }
            if args.allSatisfy(\.isEmpty) { formatQuality = [:]; break }
            for pair in stride(from: 0, to: args.count, by: 2) {
                guard let format = ImageFormat(name: args[pair].lowercased()), format.canEncode else {
                    throw .init("option '\(name)': cannot write '\(args[pair])' images (jpg, png, webp, avif, gif, tiff)")
                }
                guard let q = try int(pair + 1, "quality"), q <= 100 else { throw .init("option '\(name)': quality must be from 0 to 100") }
                formatQuality[format] = q == 0 ? nil : q
            }
        case "f", "format", "ext":
            try need(1...1)
            format = args[0].lowercased()
        case "bl", "blur":
            try need(1...1)
            blur = try number(0, "sigma", 0...100)
            if blur == 0 { blur = nil }
        case "sh", "sharpen":
            try need(1...1)
            sharpen = try number(0, "sigma", 0...10)
            if sharpen == 0 { sharpen = nil }
        case "ar", "auto_rotate":
            try need(1...1)
            autoRotate = try bool(0) ?? true
        case "cb", "cachebuster":
            try need(1...1)
            cachebuster = args[0]
        case "exp", "expires":
            try need(1...1)
            // An integer Unix time, as imgproxy reads it.
            guard let stamp = Int(args[0]), (0...253_402_300_799).contains(stamp) else {
                throw .init("option '\(name)': '\(args[0])' is not a Unix time in whole seconds")
            }
            if now.timeIntervalSince1970 > Double(stamp) { throw .init("the URL expired at \(Date(timeIntervalSince1970: Double(stamp)))") }
            expires = Date(timeIntervalSince1970: Double(stamp))
        case "pr", "preset":
            try need(1...16)
            guard using.count < 8 else { throw .init("presets nest more than 8 deep") }
            for preset in args {
                guard let definition = presets[preset] else { throw .init("unknown preset '\(preset)'") }
                // A preset inside itself, directly or not, is a loop: skipped.
                if using.contains(preset) { continue }
                for part in definition.split(separator: "/") {
                    try apply(String(part), presets: presets, now: now, using: using + [preset])
                }
            }
        case "rot", "rotate":
            try need(1...1)
            guard let degrees = Int(args[0]), (-3600...3600).contains(degrees), degrees % 90 == 0 else {
                throw .init("option '\(name)': '\(args[0])' is not a multiple of 90 degrees")
            }
            rotate = (degrees % 360 + 360) % 360
        case "fl", "flip":
            try need(1...2)
            flipHorizontal = try bool(0) ?? false
            flipVertical = try bool(1) ?? false
        case "dpr":
            try need(1...1)
            guard let ratio = try number(0, "ratio", 0...8), ratio > 0 else { throw .init("option '\(name)': the ratio must be above 0") }
            dpr = ratio
        case "pd", "padding":
            // CSS's order; right falls back to top, bottom to top, left to right.
            try need(1...4)
            guard args.contains(where: { !$0.isEmpty }) else { throw .init("option '\(name)': give at least one side") }
            let top = try int(0, "top") ?? 0
            let right = try int(1, "right") ?? top
            padding = Padding(top: top, right: right, bottom: try int(2, "bottom") ?? top, left: try int(3, "left") ?? right)
        case "bg", "background":
            try need(0...3)
            switch args.count {
            case _ where args.allSatisfy(\.isEmpty): background = nil
            case 1:
                guard let colour = RGBColour(hex: args[0]) else { throw .init("option '\(name)': '\(args[0])' is not a hex colour (ff8000)") }
                background = colour
            case 3:
                guard let r = try int(0, "red"), let g = try int(1, "green"), let b = try int(2, "blue"),
                      let colour = RGBColour(red: r, green: g, blue: b)
                else { throw .init("option '\(name)': red, green and blue must each be from 0 to 255") }
                background = colour
            default: throw .init("option '\(name)' takes a hex colour or red:green:blue")
            }
        case "wm", "watermark":
            // wm:OPACITY:POSITION:X:Y:SCALE; an opacity of 0 is off.
            try need(1...5)
            guard let opacity = try number(0, "opacity", 0...1) else { throw .init("option '\(name)' needs an opacity (0 to 1)") }
            let replicate = arg(1) == "re"
            var gravity = replicate ? Gravity.centre : try Self.gravity(Array(args.dropFirst().prefix(3)), option: name) ?? .centre
            guard gravity.kind != .smart, gravity.kind != .focusPoint else { throw .init("option '\(name)': the position is a side, a corner, ce or re") }
            if replicate {
                gravity.x = try number(2, "spacing", 0...10_000) ?? 0
                gravity.y = try number(3, "spacing", 0...10_000) ?? 0
            }
            let scale = try number(4, "scale", 0...1) ?? 0
            watermark = opacity == 0 ? nil : WatermarkPlacement(opacity: opacity, gravity: gravity, replicate: replicate, scale: scale)
        case "wmt", "watermark_text":
            // Base64url-encoded UTF-8; empty clears it.
            try need(0...1)
            guard let encoded = arg(0), !encoded.isEmpty else {
                watermarkText = nil
                break
            }
            guard let data = Data(base64URLEncoded: encoded), let text = String(data: data, encoding: .utf8) else {
                throw .init("option '\(name)': '\(encoded)' is not base64url-encoded UTF-8 text")
            }
            guard Watermark.isValidText(text) else { throw .init("option '\(name)': \(Watermark.textRule)") }
            watermarkText = text
        case "wmu", "watermark_url":
            // A base64url-encoded URL; empty clears it.
            try need(0...1)
            guard let encoded = arg(0), !encoded.isEmpty else {
                watermarkURL = nil
                break
            }
            guard let data = Data(base64URLEncoded: encoded), let text = String(data: data, encoding: .utf8),
                  let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https", "local", "s3"].contains(scheme)
            else {
                throw .init("option '\(name)': '\(encoded.prefix(40))' is not a base64url-encoded http, https, local or s3 URL")
            }
            watermarkURL = url
        case "t", "trim":
            // trim:THRESHOLD:COLOUR:EQUAL_HOR:EQUAL_VER; a threshold of 0 is off.
            try need(1...4)
            guard let threshold = try number(0, "threshold", 0...255) else { throw .init("option '\(name)' needs a threshold (0 to 255)") }
            var colour: RGBColour?
            if let text = arg(1) {
                guard let parsed = RGBColour(hex: text) else { throw .init("option '\(name)': '\(text)' is not a hex colour (ff8000)") }
                colour = parsed
            }
            trim = threshold == 0 ? nil : Trim(threshold: threshold, colour: colour, equalHorizontal: try bool(2) ?? false, equalVertical: try bool(3) ?? false)
        case "pix", "pixelate":
            try need(1...1)
            pixelate = try int(0, "size") ?? 0
        case "sepia":
            try need(0...1)
            sepia = try number(0, "intensity", 0...1) ?? ImageOperation.defaultSepiaIntensity
        case "grayscale":
            try need(0...1)
            grayscale = try bool(0) ?? true
        default:
            throw .init("unknown option '\(name)' in '\(segment)'")
        }
    }

    static func resizingType(_ text: String) throws(ImageURLError) -> Resize.Mode {
        guard let mode = Resize.Mode(rawValue: text) else {
            throw .init("unknown resizing type '\(text)' (fit, fill, fill-down, force, auto)")
        }
        return mode
    }

    /// imgproxy's gravity arguments: a kind, then the offsets in pixels
    /// (`g:ea:10:0`), or `fp` and the point as fractions (`g:fp:0.3:0.6`).
    /// Nil when the kind is left out.
    static func gravity(_ args: [String], option: String) throws(ImageURLError) -> Gravity? {
        guard let text = args.first, !text.isEmpty else { return nil }
        guard args.count <= 3 else { throw .init("option '\(option)': a gravity takes a type and two offsets at most") }
        let kind: Gravity.Kind
        switch text {
        case "no": kind = .north
        case "so": kind = .south
        case "ea": kind = .east
        case "we": kind = .west
        case "ce": kind = .centre
        case "noea": kind = .northEast
        case "nowe": kind = .northWest
        case "soea": kind = .southEast
        case "sowe": kind = .southWest
        case "sm": kind = .smart
        case "fp": kind = .focusPoint
        default: throw .init("unsupported gravity '\(text)' (no, so, ea, we, noea, nowe, soea, sowe, ce, sm, fp)")
        }
        let range = kind == .focusPoint ? 0.0...1.0 : -100_000.0...100_000.0
        var offsets = [kind == .focusPoint ? 0.5 : 0, kind == .focusPoint ? 0.5 : 0]
        for (i, text) in args.dropFirst().enumerated() where !text.isEmpty {
            guard kind != .smart else { throw .init("option '\(option)': smart gravity takes no offsets") }
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw .init("option '\(option)': \(kind == .focusPoint ? "a focus point's coordinate" : "an offset") '\(text)' is not a number from \(range.lowerBound) to \(range.upperBound)")
            }
            offsets[i] = value
        }
        return Gravity(kind, x: offsets[0], y: offsets[1])
    }

    /// The steps, in imgproxy's order: crop, resize, colour, blur, sharpen,
    /// then extend, padding, background and last the watermark (when the
    /// server has an image for it).
    public func processing(format: ImageFormat?, watermark image: WatermarkImage? = nil) -> ProcessingOptions {
        if raw {
            var output = OutputOptions()
            output.skipProcessing = Set(ImageFormat.allCases)
            return ProcessingOptions(operations: [], output: output, autoRotate: false)
        }
        var operations: [ImageOperation] = []
        if let trim {
            operations.append(.trim(threshold: trim.threshold, colour: trim.colour, equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical))
        }
        if rotate != 0 { operations.append(.rotate(degrees: rotate)) }
        if flipHorizontal || flipVertical { operations.append(.flip(horizontal: flipHorizontal, vertical: flipVertical)) }
        if let crop {
            operations.append(.cropPlaced(width: crop.width, height: crop.height, gravity: crop.gravity ?? gravity))
        }
        // dpr scales what the URL asks for; 0 stays "keep the ratio".
        func scaled(_ value: Int) -> Int { value == 0 ? 0 : max(1, Int((Double(value) * dpr).rounded())) }
        // Offsets are in the result's pixels, so dpr scales them too.
        func scaled(_ gravity: Gravity) -> Gravity {
            gravity.kind == .focusPoint ? gravity : Gravity(gravity.kind, x: gravity.x * dpr, y: gravity.y * dpr)
        }
        let (width, height) = (scaled(self.width), scaled(self.height))
        let (minWidth, minHeight) = (scaled(self.minWidth), scaled(self.minHeight))
        let zoomed = zoomX != 1 || zoomY != 1
        if width > 0 || height > 0 || minWidth > 0 || minHeight > 0 || zoomed {
            operations.append(.resize(Resize(width: width > 0 ? width : nil, height: height > 0 ? height : nil,
                                             mode: resizingType, gravity: scaled(gravity), enlarge: enlarge,
                                             minWidth: minWidth > 0 ? minWidth : nil, minHeight: minHeight > 0 ? minHeight : nil,
                                             zoomX: zoomed ? zoomX : nil, zoomY: zoomed ? zoomY : nil)))
        }
        if grayscale { operations.append(.grayscale) }
        if let sepia { operations.append(.sepia(intensity: sepia)) }
        if let blur { operations.append(.blur(sigma: blur)) }
        if let sharpen { operations.append(.sharpen(sigma: sharpen)) }
        if pixelate > 1 { operations.append(.pixelate(size: pixelate)) }
        // As imgproxy: after the filters, so that they leave the canvas as it is.
        if let extend, width > 0 || height > 0 {
            operations.append(.extend(width: width > 0 ? width : nil, height: height > 0 ? height : nil,
                                      aspectOnly: extend.aspectOnly, gravity: scaled(extend.gravity), background: background))
        }
        if let padding {
            operations.append(.padding(top: scaled(padding.top), right: scaled(padding.right), bottom: scaled(padding.bottom),
                                       left: scaled(padding.left), background: background))
        }
        if let background { operations.append(.background(background)) }
        // Text, else a URL's image, stands in for the server's image. The
        // URL's is named by the URL; its bytes come in before processing.
        let fetched = watermarkURL.map { WatermarkImage(data: Data(), key: Self.watermarkKey(for: $0)) }
        if let watermark, let content = watermarkText.map(Watermark.Content.text) ?? (fetched ?? image).map(Watermark.Content.image) {
            operations.append(.watermark(Watermark(content, opacity: watermark.opacity, gravity: scaled(watermark.gravity),
                                                   replicate: watermark.replicate, scale: watermark.scale)))
        }
        var options = ProcessingOptions(operations: operations,
                                 output: {
                                     var output = OutputOptions(format: format, quality: quality == 0 ? 80 : quality, formatQuality: formatQuality)
                                     output.maxBytes = maxBytes > 0 ? maxBytes : nil
                                     output.skipProcessing = skipProcessing
                                     output.stripMetadata = stripMetadata
                                     output.keepCopyright = keepCopyright
                                     output.stripColourProfile = stripColourProfile
                                     return output
                                 }(),
                                 autoRotate: autoRotate)
        options.enforceThumbnail = enforceThumbnail
        return options
    }

    /// The key of a watermark fetched from `url`.
    static func watermarkKey(for url: URL) -> String {
        "url-" + SHA256.hash(data: Data(url.absoluteString.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
