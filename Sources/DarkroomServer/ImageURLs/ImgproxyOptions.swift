/// imgproxy's URL options, processing and `/info`, open-source and Pro, as
/// its documentation lists them, each with how Darkroom reads it: the one
/// table the compatibility page (docs/imgproxy-options.md) is made from.
/// Tests hold it to the parsers' own rules (an option cannot be read and
/// missing here, or listed here and not read) and to the tests it names.
package struct ImgproxyOption: Sendable {
    package enum Route: String, Sendable {
        case processing, info
    }

    package let route: Route
    /// imgproxy's names, the long one first.
    package let names: [String]
    /// In imgproxy's Pro edition only.
    package let pro: Bool
    /// Where Darkroom's answer differs on purpose, to protect the server,
    /// and how; nil: as imgproxy's documentation says.
    package let difference: String?
    /// Where it differs for what this build has (a detector, a codec),
    /// and how.
    package let limit: String?
    /// The test that shows it, as `Suite.function`.
    package let test: String?

    init(_ route: Route, _ names: [String], pro: Bool = false, difference: String? = nil, limit: String? = nil, test: String?) {
        (self.route, self.names, self.pro, self.difference, self.limit, self.test) = (route, names, pro, difference, limit, test)
    }
}

package enum ImgproxyOptions {
    /// Darkroom's own processing options, which imgproxy does not have.
    package static let darkroomOwn: [(names: [String], what: String)] = [
        (["sepia"], "a sepia tone of the given strength, the seeds' filter"),
        (["grayscale"], "grey levels"),
    ]

    package static let all: [ImgproxyOption] = [
        ImgproxyOption(.processing, ["resize", "rs"], test: "ImageURLTests.resizeOptions"),
        ImgproxyOption(.processing, ["size", "s"], test: "ImageURLTests.resizeOptions"),
        ImgproxyOption(.processing, ["resizing_type", "rt"], test: "ImageURLTests.resizeOptions"),
        ImgproxyOption(.processing, ["resizing_algorithm", "ra"], pro: true, test: "ProOptionsServingTests.theResizingAlgorithmChoosesTheKernel"),
        ImgproxyOption(.processing, ["width", "w"], test: "ImageURLTests.resizeOptions"),
        ImgproxyOption(.processing, ["height", "h"], test: "ImageURLTests.resizeOptions"),
        ImgproxyOption(.processing, ["min-width", "mw"], test: "ImageURLTests.minimumsAndZoom"),
        ImgproxyOption(.processing, ["min-height", "mh"], test: "ImageURLTests.minimumsAndZoom"),
        ImgproxyOption(.processing, ["zoom", "z"], test: "ImageURLTests.minimumsAndZoom"),
        ImgproxyOption(.processing, ["dpr"], test: "ImageURLTests.dprPaddingBackgroundAndPixelate"),
        ImgproxyOption(.processing, ["enlarge", "el"], test: "ResizeTests.neverEnlargesUnlessAsked"),
        ImgproxyOption(.processing, ["extend", "ex"], test: "ImageURLTests.extendAndCornerGravities"),
        ImgproxyOption(.processing, ["extend_aspect_ratio", "extend_ar", "exar"], test: "ImageURLTests.extendAndCornerGravities"),
        ImgproxyOption(.processing, ["gravity", "g"], limit: "its object gravities (obj, objw) find faces only: the detector is dlib's face detector, not a YOLO network", test: "ImageURLTests.gravityOffsetsFocusPointsAndCropSides"),
        ImgproxyOption(.processing, ["objects_position", "obj_pos", "op"], pro: true, test: "ObjectOptionsTests.objectsPositionTakesGravitiesFocusPointsAndProp"),
        ImgproxyOption(.processing, ["crop", "c"], test: "ImageURLTests.gravityOffsetsFocusPointsAndCropSides"),
        ImgproxyOption(.processing, ["crop_aspect_ratio", "crop_ar", "car"], pro: true, test: "ProOptionsServingTests.theCropIsBroughtToTheAspectRatio"),
        ImgproxyOption(.processing, ["trim", "t"], test: "ImageURLTests.trimComesFirst"),
        ImgproxyOption(.processing, ["padding", "pd"], test: "ImageURLTests.dprPaddingBackgroundAndPixelate"),
        ImgproxyOption(.processing, ["auto_rotate", "ar"], test: "OrientationTests.autoRotateCanBeTurnedOff"),
        ImgproxyOption(.processing, ["rotate", "rot"], test: "ImageURLTests.rotateAndFlipComeBeforeSizes"),
        ImgproxyOption(.processing, ["flip", "fl"], test: "ImageURLTests.rotateAndFlipComeBeforeSizes"),
        ImgproxyOption(.processing, ["background", "bg"], test: "ImageURLTests.dprPaddingBackgroundAndPixelate"),
        ImgproxyOption(.processing, ["background_alpha", "bga"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["adjust", "a"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["brightness", "br"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["contrast", "co"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["saturation", "sa"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["monochrome", "mc"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["duotone", "dt"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["blur", "bl"], difference: "capped by the image's size: a 400 names the largest sigma allowed (resize first), so one URL cannot hold a worker for minutes", test: "WorkLimitsTests.blurAndSharpenCostIsBoundedByTheImageSize"),
        ImgproxyOption(.processing, ["sharpen", "sh"], difference: "capped by the image's size, as blur is", test: "WorkLimitsTests.blurAndSharpenCostIsBoundedByTheImageSize"),
        ImgproxyOption(.processing, ["pixelate", "pix"], test: "ImageURLTests.dprPaddingBackgroundAndPixelate"),
        ImgproxyOption(.processing, ["unsharp_masking", "ush"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["blur_areas", "ba"], pro: true, test: "BlurOptionsServingTests.blurAreasFollowTheStoredOrientation"),
        ImgproxyOption(.processing, ["progressive_blur", "pbl"], pro: true, test: "BlurOptionsServingTests.theProgressiveBlurGrowsAlongItsDirection"),
        ImgproxyOption(.processing, ["blur_detections", "bd"], pro: true, limit: "faces only: the detector is dlib's face detector, not a YOLO network", test: "ObjectOptionsTests.facesAreServedBlurredAndListedByInfo"),
        ImgproxyOption(.processing, ["draw_detections", "dd"], pro: true, limit: "faces only, as blur_detections", test: "ObjectOptionsTests.detectionStepsComeFirstAndCropObjectsBeforeTheCrop"),
        ImgproxyOption(.processing, ["crop_objects", "co"], pro: true, limit: "faces only, as blur_detections", test: "ObjectOptionsTests.coIsContrastAloneAndCropObjectsWithClasses"),
        ImgproxyOption(.processing, ["colorize", "col"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["gradient", "gr"], pro: true, test: "ImageURLTests.colourOptionsAsImgproxyProWritesThem"),
        ImgproxyOption(.processing, ["watermark", "wm"], test: "ImageURLTests.watermarkComesLast"),
        ImgproxyOption(.processing, ["watermark_url", "wmu"], pro: true, test: "ImageURLTests.watermarkURL"),
        ImgproxyOption(.processing, ["watermark_text", "wmt"], pro: true, test: "ImageURLTests.watermarkText"),
        ImgproxyOption(.processing, ["watermark_size", "wms"], pro: true, test: "ImageURLTests.watermarkSizeTurnAndShadowAsPro"),
        ImgproxyOption(.processing, ["watermark_rotate", "wm_rot", "wmr"], pro: true, test: "ImageURLTests.watermarkSizeTurnAndShadowAsPro"),
        ImgproxyOption(.processing, ["watermark_shadow", "wmsh"], pro: true, test: "ImageURLTests.watermarkSizeTurnAndShadowAsPro"),
        ImgproxyOption(.processing, ["style", "st"], pro: true, test: "ProOptionsServingTests.anSVGsStyleIsPutInAndSanitised"),
        ImgproxyOption(.processing, ["strip_metadata", "sm"], test: "ImageURLTests.metadataOptions"),
        ImgproxyOption(.processing, ["keep_copyright", "kcr"], test: "ImageURLTests.metadataOptions"),
        ImgproxyOption(.processing, ["dpi"], pro: true, test: "ProOptionsServingTests.theAnswerStatesTheDPIAsked"),
        ImgproxyOption(.processing, ["strip_color_profile", "scp"], test: "ImageURLTests.metadataOptions"),
        ImgproxyOption(.processing, ["preserve_hdr", "ph"], test: "OutputFormatServingTests.preserveHDRAsImgproxyReadsIt"),
        ImgproxyOption(.processing, ["color_profile", "cp", "icc"], pro: true, test: "ColourProfileServingTests.theAnswerCarriesTheProfileAsked"),
        ImgproxyOption(.processing, ["enforce_thumbnail", "eth"], test: "ImageURLTests.enforceThumbnailAndJPEGXL"),
        ImgproxyOption(.processing, ["quality", "q"], test: "ImageURLTests.everyOtherOption"),
        ImgproxyOption(.processing, ["format_quality", "fq"], test: "ImageURLTests.formatQuality"),
        ImgproxyOption(.processing, ["autoquality", "aq"], pro: true, test: "ImageURLTests.autoqualityAsPro"),
        ImgproxyOption(.processing, ["max_bytes", "mb"], test: "ImageURLTests.maxBytes"),
        ImgproxyOption(.processing, ["jpeg_options", "jpgo"], pro: true, limit: "trellis quantisation, overshoot deringing, scan optimisation and quantisation tables are mozjpeg's: Debian's libvips is built with libjpeg-turbo, which writes JPEG without them (the server says so at start)", test: "OutputFormatServingTests.encoderOptionsOfImgproxyProURLs"),
        ImgproxyOption(.processing, ["png_options", "pngo"], pro: true, test: "OutputFormatServingTests.encoderOptionsOfImgproxyProURLs"),
        ImgproxyOption(.processing, ["webp_options", "webpo"], pro: true, test: "OutputFormatServingTests.encoderOptionsOfImgproxyProURLs"),
        ImgproxyOption(.processing, ["avif_options", "avifo"], pro: true, test: "EncoderSettingsTests.avifSubsampling"),
        ImgproxyOption(.processing, ["format", "f", "ext"], test: "ImageURLTests.everyOtherOption"),
        ImgproxyOption(.processing, ["page", "pg"], pro: true, test: "ImageURLTests.pagesAsPro"),
        ImgproxyOption(.processing, ["pages", "pgs"], pro: true, test: "ImageURLTests.pagesAsPro"),
        ImgproxyOption(.processing, ["disable_animation", "da"], pro: true, test: "ImageURLTests.pagesAsPro"),
        ImgproxyOption(.processing, ["video_thumbnail_second", "vts"], pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"),
        ImgproxyOption(.processing, ["video_thumbnail_keyframes", "vtk"], pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"),
        ImgproxyOption(.processing, ["video_thumbnail_tile", "vtt"], pro: true, test: "VideoServingTests.spritesAndAnimationsByImgproxysGrammar"),
        ImgproxyOption(.processing, ["video_thumbnail_animation", "vta"], pro: true, test: "VideoServingTests.spritesAndAnimationsByImgproxysGrammar"),
        ImgproxyOption(.processing, ["fallback_image_url", "fiu"], pro: true, test: "ProOptionsServingTests.theURLsFallbackStandsInForAMissingSource"),
        ImgproxyOption(.processing, ["skip_processing", "skp"], test: "ImageURLTests.skipProcessing"),
        ImgproxyOption(.processing, ["raw"], difference: "the source's size, type and header limits are still checked, so only images pass", test: "RouterTests.rawAnswersTheSourceAsItCame"),
        ImgproxyOption(.processing, ["cachebuster", "cb"], test: "ImageURLTests.everyOtherOption"),
        ImgproxyOption(.processing, ["bypass_cache", "bc"], pro: true, test: "CacheOptionsServingTests.bypassingTheCacheFetchesAgain"),
        ImgproxyOption(.processing, ["cache_tags", "ct"], pro: true, test: "CacheOptionsServingTests.cacheTagsAreInTheAnswersFields"),
        ImgproxyOption(.processing, ["expires", "exp"], test: "ImageServingTests.aURLThatExpiresBetweenTwoHitsIsRefusedTheSecondTime"),
        ImgproxyOption(.processing, ["filename", "fn"], test: "ImageURLTests.fileNameAndAttachment"),
        ImgproxyOption(.processing, ["return_attachment", "att"], test: "ImageURLTests.fileNameAndAttachment"),
        ImgproxyOption(.processing, ["preset", "pr"], test: "ImageURLTests.presetsAsImgproxyDoesThem"),
        ImgproxyOption(.processing, ["hashsum", "hs"], pro: true, test: "ProOptionsServingTests.theSourcesHashsumIsChecked"),
        ImgproxyOption(.processing, ["max_src_resolution", "msr"], test: "InfoURLTests.badInfoOptionsAreRefusedWithTheirReason"),
        ImgproxyOption(.processing, ["max_src_file_size", "msfs"], test: "SecurityAndInfoOptionsTests.securityOptionsFromURLsWhereAllowed"),
        ImgproxyOption(.processing, ["max_animation_frames", "maf"], test: "SecurityAndInfoOptionsTests.securityOptionsFromURLsWhereAllowed"),
        ImgproxyOption(.processing, ["max_animation_frame_resolution", "mafr"], test: "SecurityAndInfoOptionsTests.securityOptionsFromURLsWhereAllowed"),
        ImgproxyOption(.processing, ["max_result_dimension", "mrd"], difference: "a limit of 8192 a side is on by default, where imgproxy has none (a result past it is scaled down, as imgproxy's is when set); mrd:0 stands for 100,000 a side", test: "ProOptionsServingTests.aResultLimitOfZeroIsNoLimit"),
        ImgproxyOption(.info, ["size", "s"], pro: true, test: "SecurityAndInfoOptionsTests.infoSaysTheSizeFormatAndDimensionsUnlessAskedOff"),
        ImgproxyOption(.info, ["format", "f"], pro: true, test: "SecurityAndInfoOptionsTests.infoSaysTheSizeFormatAndDimensionsUnlessAskedOff"),
        ImgproxyOption(.info, ["dimensions", "d"], pro: true, test: "SecurityAndInfoOptionsTests.infoSaysTheSizeFormatAndDimensionsUnlessAskedOff"),
        ImgproxyOption(.info, ["exif"], pro: true, test: "InfoURLTests.infoOptionsByProsNames"),
        ImgproxyOption(.info, ["iptc"], pro: true, test: "InfoURLTests.infoOptionsByProsNames"),
        ImgproxyOption(.info, ["xmp"], pro: true, test: "InfoOptionsTests.iptcAndXMPRecords"),
        ImgproxyOption(.info, ["video_meta", "vm"], pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"),
        ImgproxyOption(.info, ["detect_objects", "do"], pro: true, limit: "faces only, as blur_detections", test: "ObjectOptionsTests.facesAreServedBlurredAndListedByInfo"),
        ImgproxyOption(.info, ["classify", "cl"], pro: true, limit: "accepted; asking for classes is refused, as there is no classifier", test: "SecurityAndInfoOptionsTests.infoRefusesClassesWithoutAClassifier"),
        ImgproxyOption(.info, ["colorspace", "cs"], pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum"),
        ImgproxyOption(.info, ["bands", "b"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["sample_format", "sf"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["pages_number", "pn"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["alpha", "a"], pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum"),
        ImgproxyOption(.info, ["crop", "c"], pro: true, test: "ObjectOptionsTests.infoCropsWithObjectGravityWhereProcessingCuts"),
        ImgproxyOption(.info, ["objects_position", "obj_pos", "op"], pro: true, test: "ObjectOptionsTests.infoCropsWithObjectGravityWhereProcessingCuts"),
        ImgproxyOption(.info, ["palette", "p"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["average", "avg"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["dominant_colors", "dc"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["blurhash", "bh"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["thumb_hash", "th"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["perceptual_hash", "phash", "ph"], pro: true, test: "InfoURLTests.everyComputedOptionAnswersUnderProsKey"),
        ImgproxyOption(.info, ["calc_hashsums", "chs"], pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum"),
        ImgproxyOption(.info, ["page", "pg"], pro: true, test: "PDFServingTests.aPageIsServedOnlyWhereTurnedOn"),
        ImgproxyOption(.info, ["video_thumbnail_second", "vts"], pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"),
        ImgproxyOption(.info, ["video_thumbnail_keyframes", "vtk"], pro: true, test: "VideoServingTests.aFrameIsServedOnlyWhereTurnedOn"),
        ImgproxyOption(.info, ["cachebuster", "cb"], pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"),
        ImgproxyOption(.info, ["bypass_cache", "bc"], pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"),
        ImgproxyOption(.info, ["cache_tags", "ct"], pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"),
        ImgproxyOption(.info, ["expires", "exp"], pro: true, test: "InfoURLTests.badInfoOptionsAreRefusedWithTheirReason"),
        ImgproxyOption(.info, ["preset", "pr"], pro: true, test: "InfoURLTests.infoOptionsByProsNames"),
        ImgproxyOption(.info, ["hashsum", "hs"], pro: true, test: "InfoURLTests.theRouteAnswersProsKeysAndChecksTheHashsum"),
        ImgproxyOption(.info, ["max_src_resolution", "msr"], pro: true, test: "InfoURLTests.badInfoOptionsAreRefusedWithTheirReason"),
        ImgproxyOption(.info, ["max_src_file_size", "msfs"], pro: true, test: "SecurityAndInfoOptionsTests.infoTakesTheCacheOptions"),
    ]
}

extension ImgproxyOptions {
    /// docs/imgproxy-options.md, made from the table.
    package static var markdown: String {
        func names(_ option: ImgproxyOption) -> String { option.names.map { "`\($0)`" }.joined(separator: ", ") }
        func row(_ option: ImgproxyOption) -> String {
            let state = option.difference.map { "differs on purpose, to protect the server: \($0)" }
                ?? option.limit.map { "differs for what this build has: \($0)" } ?? "as imgproxy's documentation says"
            let test = option.test.map { "`\($0)`" } ?? "none yet"
            return "| \(names(option)) | \(option.pro ? "Pro (free here)" : "open source") | \(state) | \(test) |"
        }
        var lines = [
            "# imgproxy's URL options in Darkroom",
            "",
            "Every processing and `/info` option imgproxy documents, open-source and Pro, with how Darkroom reads it and the test",
            "that shows the answer. Made from the server's table of imgproxy options (`ImgproxyOptions`); a test fails when this",
            "page, the URL parsers or the tests named fall out of it. [Moving from imgproxy](imgproxy.md) maps the settings.",
            "",
        ]
        for route in [ImgproxyOption.Route.processing, .info] {
            let options = all.filter { $0.route == route }
            let deliberate = options.filter { $0.difference != nil }.count, limited = options.filter { $0.limit != nil }.count
            lines += [
                route == .processing ? "## Processing options" : "## `/info` options",
                "",
                "\(options.count) options (\(options.filter(\.pro).count) of them Pro's): \(options.count - deliberate - limited) as imgproxy's documentation says, \(deliberate) different on purpose to protect the server, \(limited) different for what this build has.",
                "",
                "| Names | Edition | In Darkroom | Test |",
                "|---|---|---|---|",
            ] + options.map(row) + [""]
        }
        lines += ["## Darkroom's own", "", "| Names | What it does |", "|---|---|"]
        lines += darkroomOwn.map { "| \($0.names.map { "`\($0)`" }.joined(separator: ", ")) | \($0.what) |" }
        return lines.joined(separator: "\n") + "\n"
    }
}
