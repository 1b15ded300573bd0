public import Darkroom
public import Foundation

/// The processing options of an image URL, by imgproxy's names (the parser,
/// one rule per option, is in `ImageURLOptions+Parsing.swift`; what they
/// make, in `ImageURLOptions+Processing.swift`), and Darkroom's own
/// `sepia:{intensity}` and `grayscale`.
public struct ImageURLOptions: Sendable, Hashable {
    public var resizingType: Resize.Mode = .fit
    /// CSS pixels (before `dpr`); 0: from the other side.
    public var width = 0
    public var height = 0
    public var enlarge = false
    /// A canvas of the asked size around a smaller result (`ex`), placed by
    /// this gravity.
    public var extend: Gravity?
    /// A canvas of the asked size's aspect ratio (`exar`), placed by this gravity.
    public var extendAspectRatio: Gravity?
    /// The result at least this wide or high (before `dpr`); 0: no minimum.
    public var minWidth = 0
    public var minHeight = 0
    /// Multiplies the result's sides, after the box (imgproxy's `zoom`).
    public var zoomX = 1.0
    public var zoomY = 1.0
    public var gravity: Gravity = .centre
    public var crop: Crop?
    /// The crop brought to an aspect ratio (`car`, imgproxy Pro's).
    public var cropAspect: CropAspect?
    /// The resize's kernel (`ra`, imgproxy Pro's); nil: Lanczos-3.
    public var resizingAlgorithm: Resize.Algorithm?
    /// The checksum the source's bytes must have (`hs`, imgproxy Pro's).
    public var sourceHashsum: ProcessingOptions.SourceHashsum?
    /// The resolution the answer states (`dpi`, imgproxy Pro's); 0: its own.
    public var dpi = 0
    /// The colour profile the answer is converted to and carries (`cp`,
    /// imgproxy Pro's): srgb, cmyk, or a profile of the server's folder.
    public var colourProfileName: String?
    /// CSS put first in an SVG source (`st`, imgproxy Pro's).
    public var style: String?
    /// Answered, with these options, in place of a source that cannot be
    /// had (`fiu`, imgproxy Pro's), over the server's fallback image.
    public var fallbackImageURL: URL?
    /// No cache read: fetched and processed anew (`bc`, imgproxy Pro's;
    /// only where the server allows it).
    public var bypassCache = false
    /// Tags named in the answer's header fields for a CDN's purges (`ct`,
    /// imgproxy Pro's).
    public var cacheTags: [String] = []
    /// 0: the server's quality for the output format.
    public var quality = 0
    /// Per output format, over the server's (`fq`); under `quality`.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// The most bytes of a JPEG, WebP, AVIF, JPEG XL or HEIC answer (`mb`); 0: no limit.
    public var maxBytes = 0
    /// imgproxy Pro's `pg`, `pgs` and `da`: the frames or pages of a still answer.
    public var pageSelection = PageSelection()
    /// A video source's frame (`vts`, `vtk`, imgproxy Pro's), over the server's.
    public var videoSecond: Double?
    public var videoKeyframes: Bool?
    /// Many frames as a sprite or an animation (`vtt`, `vta`).
    public var videoSprite: VideoSprite?
    /// imgproxy Pro's `aq`, over the server's autoquality.
    public var autoquality: AutoqualityOverride?
    /// Source formats answered unprocessed (`skp`).
    /// nil: the server's (``EncoderDefaults/skipProcessing``).
    public var skipProcessing: Set<ImageFormat>?
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
    /// The encoder options of imgproxy Pro's `jpgo`, `pngo`, `webpo` and
    /// `avifo`, over the server's.
    public var encoderOverrides = EncoderOverrides()
    /// More than 8 bits kept where the answer's format carries them
    /// (`ph`/`preserve_hdr`); nil: the server's setting.
    public var preserveHDR: Bool?
    /// imgproxy Pro's colour options.
    public var colour = Colour()
    /// The background's own opacity, 0...1 (`bga`, imgproxy Pro's): below
    /// 1, transparency is filled only partly and the answer keeps alpha.
    public var backgroundAlpha = 1.0
    /// The URL's unsharp masking (`ush`), over the server's.
    public var unsharpMasking = UnsharpMasking()
    /// Areas blurred (`ba`, imgproxy Pro's `blur_areas`): the sigma and the
    /// areas as fractions of the upright source.
    public var blurAreas: (sigma: Double, areas: [BlurArea])? {
        get { blurAreasValue.map { ($0.sigma, $0.areas) } }
        set { blurAreasValue = newValue.map { BlurAreasValue(sigma: $0.sigma, areas: $0.areas) } }
    }
    private var blurAreasValue: BlurAreasValue?
    private struct BlurAreasValue: Sendable, Hashable {
        var sigma: Double
        var areas: [BlurArea]
    }
    /// Where object gravity puts the objects (`op`, imgproxy Pro's).
    public var objectsPosition = ObjectsPosition.centre
    /// Detected objects blurred (`bd`), outlined (`dd`), or cut to
    /// (`crop_objects`), imgproxy Pro's.
    public var blurDetections: DetectionBlur?
    public var drawDetections: ObjectClasses?
    public var cropObjects: ObjectCrop?
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
    /// Device pixel ratio: sizes, padding and pixel offsets are CSS pixels
    /// at this ratio (lowered where the source cannot reach it).
    public var dpr = 1.0
    /// CSS pixels (before `dpr`).
    public var padding: Frame.Padding?
    /// Transparency and padding filled with this colour.
    public var background: RGBColour?
    public var pixelate = 0
    /// A border of one colour cut away first (`t`); a threshold of 0 cuts
    /// the exact colour only.
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
    /// imgproxy Pro's `wms`: the box a watermark without a scale is
    /// fitted into, in CSS pixels (0 follows the other side).
    public var watermarkWidth = 0
    public var watermarkHeight = 0
    /// Pro's `wmr`: degrees clockwise.
    public var watermarkRotation: Double = 0
    /// Pro's `wmsh`: the shadow's blur sigma; 0 is none.
    public var watermarkShadow: Double = 0
    /// The answer's file name, without extension (`fn`).
    public var filename: String?
    /// Content-Disposition: attachment rather than inline (`att`).
    public var returnAttachment = false
    /// Limits the URL sets for itself (`msr`, `msfs`, `maf`, `mafr`, `mrd`),
    /// taken only where the server allows security options in URLs.
    public var security = SecurityOverrides()
    /// What was read leniently, as imgproxy reads it (a boolean that is not
    /// one, read as false): for the server's log.
    public var warnings: [String] = []

    public struct WatermarkPlacement: Sendable, Hashable {
        public var opacity: Double
        /// A side, a corner or the centre with offsets; with `replicate`,
        /// the offsets are the space between tiles.
        public var gravity: Gravity
        public var replicate: Bool
        /// Fit into this share of the result's width and height; 0: its own size.
        public var scale: Double
        /// Tiled as a chessboard's squares (Pro's `ch`).
        public var chessboard = false
    }

    public struct Trim: Sendable, Hashable {
        public var threshold: Double
        /// nil: the top-left pixel's colour.
        public var colour: RGBColour?
        public var equalHorizontal: Bool
        public var equalVertical: Bool
    }

    /// A region cut before resizing; its own gravity, or the URL's. A side
    /// from 1 up is in pixels, below 1 a fraction of the source's, 0 all
    /// of it.
    public struct Crop: Sendable, Hashable {
        public var width: Double
        public var height: Double
        public var gravity: Gravity?
    }

    /// imgproxy's security options in a URL; nil: the server's.
    public struct SecurityOverrides: Sendable, Hashable {
        /// Pixels (the URL gives megapixels).
        public var maxSourcePixels: Int?
        public var maxSourceBytes: Int?
        public var maxAnimationFrames: Int?
        /// Pixels of each frame of an animation (the URL gives megapixels).
        public var maxAnimationFramePixels: Int?
        public var maxResultDimension: Int?
    }

    /// What parsing may use besides the URL: the server's presets, the time,
    /// and which options it allows.
    public struct Context: Sendable {
        public var presets: [String: String] = [:]
        public var now = Date()
        /// `msr`, `msfs`, `maf`, `mafr` and `mrd` in URLs
        /// (`IMGPROXY_ALLOW_SECURITY_OPTIONS`); otherwise they are refused.
        public var allowsSecurityOptions = false
        /// `bc` in URLs (`IMGPROXY_ALLOW_BYPASS_CACHE`); otherwise refused.
        public var allowsBypassCache = false
        /// Answers are attachments where a URL's `att` does not say
        /// (`IMGPROXY_RETURN_ATTACHMENT`).
        public var returnsAttachment = false
        /// HEIC and AVIF sources are read by their embedded thumbnail where
        /// a URL's `eth` does not say (`IMGPROXY_ENFORCE_THUMBNAIL`).
        public var enforcesThumbnail = false
        /// The most chained pipelines a URL may have; 0: ``ImageURLOptions/maxPipelines``.
        public var maxPipelines = 0
        /// When set, the only options a URL may name (presets may name any),
        /// as `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`.
        public var allowedOptions: Set<String>?
        /// When set, the only info options an `/info` URL may name (presets
        /// may name any), as `IMGPROXY_ALLOWED_INFO_OPTIONS`.
        public var allowedInfoOptions: Set<String>?
        /// The request's client hints, where the server reads them: the
        /// URL's `dpr` and width before any option sets its own.
        public var clientHints: ClientHints?

        public init(presets: [String: String] = [:], now: Date = Date(), allowsSecurityOptions: Bool = false,
                    allowedOptions: Set<String>? = nil) {
            self.presets = presets
            self.now = now
            self.allowsSecurityOptions = allowsSecurityOptions
            self.allowedOptions = allowedOptions
        }
    }

    init() {}

    /// The options of `segments`, after the `default` preset when there is
    /// one (as imgproxy: the URL's own options override it).
    init(segments: [String], context: Context) throws(ImageURLError) {
        // As imgproxy: the hints first, then the default preset, then the URL.
        try self.init(pipeline: segments.map { Segment(text: $0) }, context: context, first: true)
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
            let context = Context(presets: presets, allowsSecurityOptions: true)
            do {
                // Each pipeline of a preset that chains them.
                for (index, pipeline) in try pipelines(["pr:\(name)"], context: context).enumerated() {
                    _ = try ImageURLOptions(pipeline: pipeline, context: context, first: index == 0)
                }
            } catch {
                throw .init("preset '\(name)': \(error.message)")
            }
        }
    }
}
