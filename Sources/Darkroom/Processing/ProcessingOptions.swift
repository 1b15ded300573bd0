import Foundation

/// Everything that says how to turn source bytes into output bytes.
///
/// ```swift
/// let options = ProcessingOptions(
///     operations: [.resize(Resize(width: 600, height: 600)), .sepia(intensity: 0.8)],
///     output: OutputOptions(format: .jpeg, quality: 85)
/// )
/// ```
public struct ProcessingOptions: Sendable, Hashable, Codable {
    public var operations: [ImageOperation]
    public var output: OutputOptions
    /// Rotate by the EXIF orientation before anything else (default on).
    public var autoRotate: Bool
    public var limits: ImageLimits
    /// An AVIF or HEIC source's embedded thumbnail (libheif's) is used in
    /// place of the image where it has one, and then counts as the source
    /// (imgproxy's `enforce_thumbnail`); other sources are read whole.
    public var enforceThumbnail = false
    /// Which frames or pages of a GIF, WebP or TIFF source make a still
    /// answer (imgproxy Pro's `page`, `pages` and `disable_animation`).
    public var pages = PageSelection()
    /// How objects are found, for the steps that look for them.
    public var objectDetection = ObjectDetection()
    /// Where object gravity puts the objects in its cut.
    public var objectsPosition = ObjectsPosition.centre
    /// A video source's frame: its time in seconds and whether the
    /// keyframe before it will do, over the server's
    /// (``VideoThumbnails``); imgproxy Pro's `vts` and `vtk`.
    public var videoSecond: Double?
    public var videoKeyframes: Bool?
    /// Many of a video's frames in one answer, as a sprite or an animation
    /// (imgproxy Pro's `vtt` and `vta`); nil: one frame.
    public var videoSprite: VideoSprite?
    /// The checksum the source's bytes must have (imgproxy Pro's
    /// `hashsum`): another is refused before any decoding. Not checked
    /// for video sources, as Pro does not.
    public var sourceHashsum: SourceHashsum?
    /// CSS put first inside an SVG source, before it is sanitised (imgproxy
    /// Pro's `style`).
    public var svgStyle: String?

    /// A checksum of the source's bytes: its kind and lowercase hex.
    public struct SourceHashsum: Sendable, Hashable, Codable {
        public var kind: Hashsum.Kind
        public var hex: String

        public init(kind: Hashsum.Kind, hex: String) {
            self.kind = kind
            self.hex = hex
        }
    }

    public init(
        operations: [ImageOperation] = [],
        output: OutputOptions = OutputOptions(),
        autoRotate: Bool = true,
        limits: ImageLimits = .default
    ) {
        self.operations = operations
        self.output = output
        self.autoRotate = autoRotate
        self.limits = limits
    }

    /// A stable text form for cache keys. Limits are left out: they decide
    /// whether an image is processed, not what the result is; but for the
    /// frame limit, which decides how much of an animation it keeps, and
    /// the result limit, which scales a result down (each named only when
    /// not the default, so other keys stay as they were).
    public var identifier: String {
        var parts = operations.map(\.identifier)
        parts.append(autoRotate ? "rotate" : "norotate")
        parts.append(output.identifier)
        if enforceThumbnail { parts.append("eth") }
        if pages != PageSelection() { parts.append(pages.identifier) }
        if operations.contains(where: \.detectsObjects) {
            parts.append(objectDetection.identifier)
            if objectsPosition != .centre { parts.append(objectsPosition.identifier) }
        }
        if limits.maxAnimationFrames != ImageLimits.default.maxAnimationFrames {
            parts.append("frames\(limits.maxAnimationFrames)")
        }
        // The result limit scales a result down to fit it.
        if limits.maxResultDimension != ImageLimits.default.maxResultDimension {
            parts.append("mrd\(limits.maxResultDimension)")
        }
        // An SVG is drawn at a scale the pixel limit may cut, and answered
        // as it came where sanitising is off.
        if limits.maxSourcePixels != ImageLimits.default.maxSourcePixels { parts.append("msr\(limits.maxSourcePixels)") }
        if !limits.sanitizesSVG { parts.append("svg-unsanitised") }
        // A video's frame: the URL's time, else the server's.
        if let video = limits.videoThumbnails {
            parts.append("vts\(ImageOperation.format(videoSecond ?? video.second))\(videoKeyframes ?? video.keyframes ? "k" : "")")
            if let videoSprite { parts.append(videoSprite.identifier) }
        }
        // A source with other bytes is refused: never answered from the
        // cache of one that has them.
        if let sourceHashsum { parts.append("hs-\(sourceHashsum.kind.rawValue)-\(sourceHashsum.hex)") }
        if let svgStyle { parts.append("st-" + Hashsum.hex(of: Data(svgStyle.utf8), .sha256).prefix(24)) }
        // A PDF page is drawn on white unless the server says otherwise.
        if let pdf = limits.pdfPages, !pdf.background { parts.append("pdf-transparent") }
        return parts.joined(separator: "/")
    }
}

/// The frames or pages a still answer is made of, as imgproxy Pro reads
/// `page`, `pages` and `disable_animation`: `count` of them from `first`
/// (0-based), stacked top to bottom and left-aligned. An animated source
/// answered as an animation uses every frame, unless `disableAnimation`.
public struct PageSelection: Sendable, Hashable, Codable {
    public var first = 0
    public var count = 1
    /// Every source is answered as a still image.
    public var disableAnimation = false

    public init(first: Int = 0, count: Int = 1, disableAnimation: Bool = false) {
        self.first = first
        self.count = count
        self.disableAnimation = disableAnimation
    }

    var identifier: String { "pages\(first)+\(count)\(disableAnimation ? "-still" : "")" }

    /// The most pages one answer stacks.
    public static let maxCount = 100
}
