public import Darkroom
import Crypto
public import Foundation

/// What a URL's options make: the steps in imgproxy's order, and the output.
extension ImageURLOptions {
    /// The server's encoder settings, which a URL's `q` and `fq` override.
    public struct EncoderDefaults: Sendable, Hashable {
        /// imgproxy's `IMGPROXY_QUALITY`.
        public var quality = 80
        /// imgproxy's `IMGPROXY_FORMAT_QUALITY` and its defaults.
        public var formatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jxl: 77]
        /// Progressive JPEG (`IMGPROXY_JPEG_PROGRESSIVE`).
        public var progressiveJPEG = false
        /// Each format's settings past the quality (`IMGPROXY_PNG_*`,
        /// `_WEBP_*`, `_AVIF_*`, `_JXL_*`, `_JPEG_*`).
        public var settings = EncoderSettings()
        /// imgproxy's `IMGPROXY_PRESERVE_HDR`, which a URL's `ph` overrides.
        public var preserveHDR = false
        /// imgproxy Pro's `IMGPROXY_UNSHARP_MASKING_*`, which a URL's `ush`
        /// overrides: off unless set, as imgproxy's open-source edition.
        public var unsharpMasking = UnsharpMasking()
        /// imgproxy Pro's `IMGPROXY_AUTOQUALITY_*`, which a URL's `aq`
        /// overrides: off unless set.
        public var autoquality: Autoquality?
        /// Source formats answered as they came unless a URL's `skp` says
        /// otherwise (imgproxy's `IMGPROXY_SKIP_PROCESSING_FORMATS`).
        public var skipProcessing: Set<ImageFormat> = []

        public init() {}
    }

    /// The steps, in imgproxy's order: the blurred areas and detections,
    /// trim, rotation, crop, the resize
    /// (always: it carries the device pixel ratio and the result limit),
    /// colour, blur, sharpen and pixelate, then extend and padding,
    /// background and last the watermark (when there is an image or text
    /// for it).
    /// - Parameters:
    ///   - watermark: the server's watermark image; `watermarkURL`, the
    ///     server's fetched one, over it; `watermarkOpacity` multiplies
    ///     every `wm` opacity.
    public func processing(format: ImageFormat?, watermark image: WatermarkImage? = nil,
                           encoder: EncoderDefaults = EncoderDefaults(), watermarkURL serverURL: URL? = nil,
                           watermarkOpacity: Double = 1) -> ProcessingOptions {
        if raw {
            var output = OutputOptions()
            output.skipProcessing = Set(ImageFormat.allCases)
            var options = ProcessingOptions(operations: [], output: output, autoRotate: false)
            options.sourceHashsum = sourceHashsum
            return options
        }
        var operations: [ImageOperation] = []
        // First, on the upright source its fractions are of (before trim,
        // turns and crops move it).
        if let blurAreas, blurAreas.sigma > 0, !blurAreas.areas.isEmpty {
            operations.append(.blurAreas(sigma: blurAreas.sigma, areas: blurAreas.areas))
        }
        // Faces are looked for on the upright source, where they are largest.
        if let blurDetections { operations.append(.blurDetections(sigma: blurDetections.sigma, classes: blurDetections.classes)) }
        if let drawDetections { operations.append(.drawDetections(classes: drawDetections)) }
        if let trim {
            operations.append(.trim(threshold: trim.threshold, colour: trim.colour, equalHorizontal: trim.equalHorizontal, equalVertical: trim.equalVertical))
        }
        if rotate != 0 { operations.append(.rotate(degrees: rotate)) }
        if flipHorizontal || flipVertical { operations.append(.flip(horizontal: flipHorizontal, vertical: flipVertical)) }
        // Before the crop, which it takes the place of where it finds objects.
        if let cropObjects { operations.append(.cropObjects(scale: cropObjects.scale, classes: cropObjects.classes)) }
        if let crop {
            operations.append(.cropPlaced(width: crop.width, height: crop.height, gravity: crop.gravity ?? gravity, aspect: cropAspect))
        }
        let zoomed = zoomX != 1 || zoomY != 1
        var resize = Resize(width: width > 0 ? width : nil, height: height > 0 ? height : nil,
                            mode: resizingType, gravity: gravity, enlarge: enlarge,
                            minWidth: minWidth > 0 ? minWidth : nil, minHeight: minHeight > 0 ? minHeight : nil,
                            zoomX: zoomed ? zoomX : nil, zoomY: zoomed ? zoomY : nil, dpr: dpr == 1 ? nil : dpr)
        resize.algorithm = resizingAlgorithm
        operations.append(.resize(resize))
        if let sharpening = unsharpMasking.over(encoder.unsharpMasking).operation { operations.append(sharpening) }
        if grayscale { operations.append(.grayscale) }
        if let sepia { operations.append(.sepia(intensity: sepia)) }
        operations += colour.operations
        if let blur { operations.append(.blur(sigma: blur)) }
        if let sharpen { operations.append(.sharpen(sigma: sharpen)) }
        if pixelate > 1 { operations.append(.pixelate(size: pixelate)) }
        // As imgproxy: after the filters, so that they leave the canvas as it is.
        if extend != nil || extendAspectRatio != nil || padding != nil {
            operations.append(.frame(Frame(extend: extend, extendAspectRatio: extend == nil ? extendAspectRatio : nil,
                                           padding: padding, background: background)))
        }
        if let background {
            operations.append(backgroundAlpha < 1 ? .backgroundWithAlpha(background, alpha: backgroundAlpha) : .background(background))
        }
        // Text, else a URL's image, stands in for the server's image. The
        // URL's is named by the URL; its bytes come in before processing.
        let fetched = (watermarkURL ?? serverURL).map { WatermarkImage(data: Data(), key: Self.watermarkKey(for: $0)) }
        if let watermark, let content = watermarkText.map(Watermark.Content.text) ?? (fetched ?? image).map(Watermark.Content.image) {
            var laid = Watermark(content, opacity: watermark.opacity * min(1, max(0, watermarkOpacity)), gravity: watermark.gravity,
                                 replicate: watermark.replicate, scale: watermark.scale)
            (laid.fitWidth, laid.fitHeight) = (watermarkWidth, watermarkHeight)
            laid.chessboard = watermark.chessboard
            (laid.rotation, laid.shadowSigma) = (watermarkRotation, watermarkShadow)
            operations.append(.watermark(laid))
        }
        var output = OutputOptions(format: format, progressive: encoder.progressiveJPEG)
        output.encoder = encoderOverrides.applied(to: encoder.settings, progressive: &output.progressive)
        output.preserveHDR = preserveHDR ?? encoder.preserveHDR
        // imgproxy's order: the URL's quality, then the format's (the URL's
        // over the server's), then the server's.
        if quality > 0 {
            output.quality = quality
        } else {
            output.quality = encoder.quality
            output.formatQuality = encoder.formatQuality.merging(formatQuality) { $1 }
        }
        output.maxBytes = maxBytes > 0 ? maxBytes : nil
        output.autoquality = autoquality.map { $0.resolved(over: encoder.autoquality) } ?? encoder.autoquality
        output.skipProcessing = skipProcessing ?? encoder.skipProcessing
        output.stripMetadata = stripMetadata
        output.keepCopyright = keepCopyright
        output.stripColourProfile = stripColourProfile
        var options = ProcessingOptions(operations: operations, output: output, autoRotate: autoRotate)
        options.enforceThumbnail = enforceThumbnail
        options.pages = pageSelection
        options.objectsPosition = objectsPosition
        (options.videoSecond, options.videoKeyframes, options.videoSprite) = (videoSecond, videoKeyframes, videoSprite)
        (options.sourceHashsum, options.svgStyle, options.output.dpi) = (sourceHashsum, style, dpi)
        return options
    }

    /// The server's limits with the URL's own security options over them.
    public func limits(over server: ImageLimits) -> ImageLimits {
        var limits = server
        if let pixels = security.maxSourcePixels { limits.maxSourcePixels = pixels }
        if let bytes = security.maxSourceBytes { limits.maxSourceBytes = bytes }
        if let frames = security.maxAnimationFrames { limits.maxAnimationFrames = frames }
        if let pixels = security.maxAnimationFramePixels { limits.maxAnimationFramePixels = pixels }
        // 0 is "no limit" to imgproxy: here the largest side Darkroom
        // takes anywhere; the memory budget still bounds the result.
        if let dimension = security.maxResultDimension {
            limits.maxResultDimension = dimension > 0 ? dimension : ImageLimits.largestResultDimension
        }
        return limits
    }

    /// The key of a watermark fetched from `url`.
    static func watermarkKey(for url: URL) -> String {
        "url-" + SHA256.hash(data: Data(url.absoluteString.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined()
    }
}
