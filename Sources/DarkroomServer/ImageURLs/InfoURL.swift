public import Darkroom
public import Foundation

/// An `/info` URL: imgproxy Pro's info options (`exif:1:1`, `dc:1`,
/// `bh:4:3`, ...) before a source written as image URLs write it. Options
/// that are not info options are read as image options (presets, expiry,
/// cache buster and security limits apply; the rest are accepted and
/// change nothing, as before info options existed). Where a name is both,
/// the info option wins, as Pro reads an info URL.
public struct InfoURL: Sendable {
    public var source: URL
    /// The source came encrypted (`/enc/`): no answer may show it.
    public var sourceIsEncrypted = false
    public var info = InfoOptions()
    /// A checksum the source's bytes must have (`hashsum`), or nil.
    public var expectedHashsum: (kind: Hashsum.Kind, hex: String)?
    /// The image options among the segments.
    public var imageOptions = ImageURLOptions()

    /// Parses the path after `/info`.
    public init(path: String, context: ImageURLOptions.Context, sources: SourceRules = SourceRules()) throws(ImageURLError) {
        let parts = try ImageURL.Parts(path: path, onlyPresets: false, sources: sources)
        source = parts.source
        sourceIsEncrypted = parts.sourceIsEncrypted
        // Each image option with the presets it came from, so that an
        // operator's info preset may name what a URL may not (bc, msr).
        var imageSegments: [ImageURLOptions.Segment] = []
        for segment in parts.optionSegments {
            try read(segment, context: context, presets: [], imageSegments: &imageSegments)
        }
        imageOptions = try ImageURLOptions(pipeline: imageSegments, context: context, first: true)
        // Image options that choose what is described: a video's frame.
        (info.videoSecond, info.videoKeyframes) = (imageOptions.videoSecond, imageOptions.videoKeyframes)
        if let problem = info.problem { throw .init(problem) }
    }

    /// Checks every `/info` preset as a URL would use it, so that a server
    /// with a bad one stops at start rather than refusing its URLs.
    public static func check(presets: [String: String]) throws(ImageURLError) {
        for name in presets.keys.sorted() {
            guard !name.isEmpty, !name.contains(":"), !name.contains("/") else {
                throw .init("preset name '\(name)' is empty or has ':' or '/'")
            }
            do {
                _ = try InfoURL(path: "/_/pr:\(name)/plain/http://example.com/a.jpg",
                                context: ImageURLOptions.Context(presets: presets, allowsSecurityOptions: true))
            } catch {
                throw .init("preset '\(name)': \(error.message)")
            }
        }
    }

    private mutating func read(_ segment: String, context: ImageURLOptions.Context, presets using: [String],
                               imageSegments: inout [ImageURLOptions.Segment]) throws(ImageURLError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        // Presets may name any; the URL only the allowed ones (those read
        // by the image options' parser too: cb, vts, msr and the like, and
        // pr, as image URLs hold it).
        if using.isEmpty, let allowed = context.allowedInfoOptions, !allowed.contains(name) {
            throw .init("info option '\(name)' is not allowed here")
        }
        if name == "pr" || name == "preset" {
            // Presets may hold info options and image options alike.
            guard parts.count > 1, parts.count <= 17 else { throw .init("option '\(name)' takes 1 to 16 preset names") }
            guard using.count < 8 else { throw .init("presets nest more than 8 deep") }
            for preset in parts.dropFirst() where !using.contains(preset) {
                guard let definition = context.presets[preset] else { throw .init("unknown preset '\(preset)'") }
                for part in definition.split(separator: "/") {
                    try read(String(part), context: context, presets: using + [preset], imageSegments: &imageSegments)
                }
            }
            return
        }
        guard let rule = Self.rules[name] else {
            imageSegments.append(ImageURLOptions.Segment(text: segment, presets: using))
            return
        }
        var arguments = ImageURLOptions.Arguments(name: name, values: Array(parts.dropFirst()))
        try rule(&self, &arguments)
    }

    typealias Rule = OptionRules<InfoURL>.Rule

    /// Pro's info options by every name they have. Booleans are read as
    /// imgproxy reads them (1, t, true ...).
    static let rules = table.rules

    /// Pro's info options, each declared with its rule; those the image
    /// options' parser reads (cb, vts, msr and the like) are declared here
    /// too, as /info takes them.
    static let table: OptionRules<InfoURL> = {
        var table = OptionRules<InfoURL>(route: .info)
        func add(_ option: URLOption, readAs names: [String]? = nil, rule: @escaping Rule) { table.add(option, readAs: names, rule: rule) }
        // On unless asked off, as Pro's.
        add(URLOption(["size", "s"], "%size", cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoSaysTheSizeFormatAndDimensionsUnlessAskedOff")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.size = a.bool(0) ?? true }
        add(URLOption(["format", "f"], "%format", cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoSaysTheSizeFormatAndDimensionsUnlessAskedOff")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.format = a.bool(0) ?? true }
        add(URLOption(["dimensions", "d"], "%dimensions", cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoSaysTheSizeFormatAndDimensionsUnlessAskedOff")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.dimensions = a.bool(0) ?? true }
        add(URLOption(["exif"], "%enabled:%canonical_names", cost: .none, pro: true, test: "InfoURLTests.infoOptionsByProsNames")) { u, a throws(ImageURLError) in
            try a.need(1...2)
            u.info.exif = a.bool(0) ?? true
            u.info.exifCanonicalNames = a.bool(1) ?? false
        }
        add(URLOption(["iptc"], "%iptc", cost: .none, pro: true, test: "InfoURLTests.infoOptionsByProsNames")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.iptc = a.bool(0) ?? false }
        add(URLOption(["xmp"], "%xmp", cost: .none, pro: true, test: "InfoOptionsTests.iptcAndXMPRecords")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.xmp = a.bool(0) ?? false }
        add(URLOption(["colorspace", "cs"], "%colorspace", cost: .none, pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.colourspace = a.bool(0) ?? false }
        add(URLOption(["bands", "b"], "%bands", cost: .none, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.bands = a.bool(0) ?? false }
        add(URLOption(["sample_format", "sf"], "%sample_format", cost: .none, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.sampleFormat = a.bool(0) ?? false }
        add(URLOption(["pages_number", "pn"], "%pages_number", cost: .none, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.pagesNumber = a.bool(0) ?? false }
        add(URLOption(["thumb_hash", "th"], "1", cost: .smallCopy, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.thumbHashHex = a.bool(0) ?? false }
        add(URLOption(["perceptual_hash", "phash", "ph"], "1", cost: .smallCopy, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in try a.need(1...1); u.info.perceptualHash = a.bool(0) ?? false }
        // A video source's container tags and streams; on unless asked off, as Pro's.
        add(URLOption(["video_meta", "vm"], "%video_meta", cost: .none, pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn")) { u, a throws(ImageURLError) in
            try a.need(1...1)
            u.info.videoMeta = a.bool(0) ?? true
        }
        add(URLOption(["alpha", "a"], "%alpha:%check_transparency", cost: .pixels, pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum")) { u, a throws(ImageURLError) in
            try a.need(1...2)
            u.info.alpha = a.bool(0) ?? false
            u.info.checkTransparency = u.info.alpha && a.bool(1) ?? false
        }
        add(URLOption(["crop", "c"], "%width:%height:%gravity", ArgumentRange("width", StepRanges.side), ArgumentRange("height", StepRanges.side), cost: .geometry, pro: true, test: "ObjectOptionsTests.infoCropsWithObjectGravityWhereProcessingCuts")) { u, a throws(ImageURLError) in
            try a.need(2...(a.values.count > 2 && a.values[2].hasPrefix("obj") ? 3 + 2 * ObjectClasses.maxEntries : 5))
            let width = try a.number(0, "width", StepRanges.side) ?? 0, height = try a.number(1, "height", StepRanges.side) ?? 0
            let gravity = try a.gravity(from: 2, allowed: .crop) ?? .centre
            u.info.crop = width > 0 || height > 0 ? InfoCrop(width: width, height: height, gravity: gravity) : nil
        }
        add(URLOption(["objects_position", "obj_pos", "op"], "%type:%x_offset:%y_offset", ArgumentRange("offsets", StepRanges.offset), cost: .geometry, pro: true, test: "ObjectOptionsTests.infoCropsWithObjectGravityWhereProcessingCuts")) { u, a throws(ImageURLError) in u.info.objectsPosition = try a.objectsPosition() }
        add(URLOption(["palette", "p"], "%colors", ArgumentRange("colors, or 0", StepRanges.paletteColours), cost: .smallCopy, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in
            try a.need(1...1)
            let colours = try a.whole(0, "colours", 0...StepRanges.paletteColours.upperBound) ?? 0
            guard colours == 0 || StepRanges.paletteColours.contains(colours) else {
                throw .init("option '\(a.name)': a palette has \(StepRanges.paletteColours.lowerBound) to \(StepRanges.paletteColours.upperBound) colours (0: none)")
            }
            u.info.paletteColours = colours
        }
        add(URLOption(["average", "avg"], "%average:%ignore_transparent", cost: .smallCopy, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in
            try a.need(1...2)
            u.info.average = a.bool(0) ?? false
            u.info.averageIgnoresTransparent = a.bool(1) ?? true
        }
        add(URLOption(["dominant_colors", "dc"], "%dominant_colors:%build_missed", cost: .smallCopy, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in
            try a.need(1...2)
            u.info.dominantColours = a.bool(0) ?? false
            u.info.buildMissedColours = a.bool(1) ?? false
        }
        add(URLOption(["blurhash", "bh"], "%x_components:%y_components", ArgumentRange("components, or 0", StepRanges.blurHashComponents), cost: .smallCopy, pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey")) { u, a throws(ImageURLError) in
            try a.need(2...2)
            let x = try a.whole(0, "components", 0...StepRanges.blurHashComponents.upperBound) ?? 0
            let y = try a.whole(1, "components", 0...StepRanges.blurHashComponents.upperBound) ?? 0
            // 0 is Pro's "none"; Darkroom's own 4 x 3 is always given.
            if x > 0, y > 0 { u.info.blurHashComponents = (x, y) }
        }
        add(URLOption(["calc_hashsums", "chs"], "%hashsum_type1:%hashsum_type2:...:%hashsum_typeN", cost: .none, pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum")) { u, a throws(ImageURLError) in
            try a.need(1...4)
            var kinds: [Hashsum.Kind] = []
            for index in a.values.indices {
                guard let kind = try a.choice(index, "hashsum type", Hashsum.Kind.self) else { continue }
                if !kinds.contains(kind) { kinds.append(kind) }
            }
            u.info.hashsums = kinds
        }
        add(URLOption(["hashsum", "hs"], "%hashsum_type:%hashsum", cost: .none, pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum")) { u, a throws(ImageURLError) in u.expectedHashsum = try a.hashsum().map { ($0.kind, $0.hex) } }
        add(URLOption(["page", "pg"], "%page", ArgumentRange("page", StepRanges.page), cost: .child, pro: true, test: "PDFServingTests.aPageIsServedOnlyWhereTurnedOn")) { u, a throws(ImageURLError) in
            try a.need(1...1)
            u.info.page = try a.whole(0, "page", StepRanges.page) ?? 0
        }
        add(URLOption(["detect_objects", "do"], "%detect_objects", cost: .detector, pro: true, limit: "faces only, as blur_detections", test: "ObjectOptionsTests.facesAreServedBlurredAndListedByInfo")) { u, a throws(ImageURLError) in
            try a.need(1...1)
            u.info.detectObjects = a.bool(0) ?? false
        }
        add(URLOption(["classify", "cl"], "%top_k:%class_name1:%class_name2..%class_nameN", ArgumentRange("top_k", URLRanges.topK), cost: .detector, pro: true, limit: "accepted; asking for classes is refused, as there is no classifier", test: "SecurityAndInfoOptionsTests.infoRefusesClassesWithoutAClassifier")) { _, a throws(ImageURLError) in
            if try a.whole(0, "top K", URLRanges.topK) ?? 0 > 0 { throw .init("option '\(a.name)' needs a classifier, which this server does not have") }
        }
        // Read by the image options' parser.
        table.declare(URLOption(["video_thumbnail_second", "vts"], "%second", ArgumentRange("second", VideoThumbnails.seconds), cost: .child, pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"))
        table.declare(URLOption(["video_thumbnail_keyframes", "vtk"], "%keyframes", cost: .child, pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"))
        table.declare(URLOption(["cachebuster", "cb"], "%string", cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"))
        table.declare(URLOption(["bypass_cache", "bc"], "%bypass", cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"))
        table.declare(URLOption(["cache_tags", "ct"], "%tag1:%tag2:...:%tagN", cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"))
        table.declare(URLOption(["expires", "exp"], "%timestamp", ArgumentRange("timestamp", URLRanges.unixTime), cost: .none, pro: true, test: "InfoURLTests.badInfoOptionsAreRefusedWithTheirReason"))
        table.declare(URLOption(["preset", "pr"], "%preset_name1:%preset_name2:...:%preset_nameN", cost: .none, pro: true, test: "InfoURLTests.infoOptionsByProsNames"))
        table.declare(URLOption(["max_src_resolution", "msr"], "%resolution", ArgumentRange("megapixels", URLRanges.megapixels), cost: .none, pro: true, test: "InfoURLTests.badInfoOptionsAreRefusedWithTheirReason"))
        table.declare(URLOption(["max_src_file_size", "msfs"], "%size", ArgumentRange("bytes", URLRanges.sourceBytes), cost: .none, pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"))
        return table
    }()
}
