internal import Foundation

/// Limits on one processing run: the source's size, checked before any
/// pixel is decoded; what decoding it would cost (a JPEG's scans, the
/// memory decoders would hold), estimated from its headers before anything
/// is allocated; the result's size, checked before any pixel is computed;
/// and the time the run may take.
public struct ImageLimits: Sendable, Hashable, Codable {
    /// The largest source, in bytes. Default 50 MB.
    public var maxSourceBytes: Int
    /// The largest source, in pixels (width x height). Default 50 megapixels.
    public var maxSourcePixels: Int
    /// The largest width or height of a result, or of any step's image on
    /// the way to it. Default 8192, as imgproxy's `max_result_dimension`.
    public var maxResultDimension: Int
    /// The largest ``maxResultDimension`` there is: what imgproxy's "no
    /// limit" (`mrd:0`) stands for.
    public static let largestResultDimension = 100_000
    /// How long one run may compute; past it, libvips is stopped through
    /// the kill switch and the run fails with
    /// ``DarkroomError/Kind/processingTimedOut``. Default 20 seconds.
    public var maxProcessingTime: Duration
    /// The most frames of an animated GIF or WebP that are decoded and
    /// answered, from the first (imgproxy's `max_animation_frames`); the
    /// rest are dropped. The pixel limit counts every decoded frame. 1
    /// answers the first frame as a still image. Default 100.
    public var maxAnimationFrames: Int
    /// Where set, an animation's frames are checked one by one against this
    /// many pixels instead of all of them together against
    /// ``maxSourcePixels`` (imgproxy's `max_animation_frame_resolution`).
    public var maxAnimationFramePixels: Int?
    /// Whether JPEG XL sources are read and JPEG XL answers written. Off by
    /// default: libvips marks its JPEG XL decoder untrusted (not yet
    /// hardened against hostile files). The other limits apply as to any
    /// format.
    public var jpegXL: Bool
    /// The most scans a multi-scan (progressive) JPEG may have. libjpeg
    /// reads every scan before the first row, each over the whole image,
    /// so their number, not the file's size, is what such a file costs.
    /// Cameras and encoders write at most a few dozen (libjpeg's
    /// progressive default: 10); default 100.
    public var maxJPEGScans: Int
    /// The most memory one run may hold, from its decode to its encode: a
    /// multi-scan JPEG's coefficients, an image decoded whole (WebP, HEIF,
    /// GIF, an interlaced PNG, one turned by its EXIF orientation, every
    /// frame of an animation) with what its decoder holds beside it, a
    /// `wmu` watermark, the steps that keep their image in memory (trim,
    /// a smart crop, a quarter turn), and the encoder's working set for
    /// the result's format and size; the thumbnail path's rows and result.
    /// Estimated from the headers and the steps' sizes before anything is
    /// allocated (`MemoryCost`); a run over it is refused with
    /// ``DarkroomError/Kind/tooMuchMemory`` (or taken by the engine that
    /// streams it). Default ``defaultDecodeMemory``.
    public var maxDecodeMemory: Int
    /// The most tiles a HEIF or AVIF image's grid may have libheif decode,
    /// counted from the container before it runs: libheif decodes every
    /// reference to a tile, even to one tile repeated. Cameras write a few
    /// hundred (an iPhone's 48 MP HEIC: 192 of 512 x 512); default 256.
    public var maxHEIFTiles: Int = 256
    /// The most frames an animated GIF or WebP may hold, counted from its
    /// container before libvips reads it (libvips reads every frame's
    /// header first, a WebP's in time that grows with the square of their
    /// number), whatever ``maxAnimationFrames`` answers of them. Real
    /// animations have hundreds; default 10,000.
    public var maxSourceFrames: Int = 10_000
    /// Draw SVG sources into pixels, with libvips' SVG loader (librsvg) in
    /// a child process (see ``SVGDrawing``): nil (the default for a
    /// library user, who names the child) refuses to draw them. An SVG
    /// answered as SVG needs no drawing.
    public var svgDrawing: SVGDrawing?
    /// Write HEIC answers, and AVIF ones past the size where libaom takes
    /// its slower mode, in a child process (see ``EncodingChild``): nil
    /// (the default for a library user, who names the child) writes them
    /// in this process, where they cannot be stopped mid-picture.
    public var encodingChild: EncodingChild?
    /// Whether SVG sources are drawn into pixels (``svgDrawing`` is set).
    public var svgRendering: Bool { svgDrawing != nil }
    /// Sanitise SVG sources (scripts, event handlers, external references
    /// removed; DTDs refused) before they are rendered or answered, as
    /// imgproxy's `IMGPROXY_SANITIZE_SVG`, on by default.
    public var sanitizesSVG = true
    /// Draw PDF sources' pages, in a child process (see ``PDFPages``):
    /// nil (the default) refuses PDF sources, as libvips marks its PDF
    /// loader untrusted.
    public var pdfPages: PDFPages?
    /// Answer video sources by a frame, decoded in a child process (see
    /// ``VideoThumbnails``): nil (the default) refuses video sources.
    public var videoThumbnails: VideoThumbnails?

    public init(maxSourceBytes: Int = 50_000_000, maxSourcePixels: Int = 50_000_000,
                maxResultDimension: Int = 8192, maxProcessingTime: Duration = .seconds(20),
                maxAnimationFrames: Int = 100, jpegXL: Bool = false, maxJPEGScans: Int = 100,
                maxDecodeMemory: Int = ImageLimits.defaultDecodeMemory) {
        self.maxSourceBytes = maxSourceBytes
        self.maxSourcePixels = maxSourcePixels
        self.maxResultDimension = maxResultDimension
        self.maxProcessingTime = maxProcessingTime
        self.maxAnimationFrames = maxAnimationFrames
        self.jpegXL = jpegXL
        self.maxJPEGScans = maxJPEGScans
        self.maxDecodeMemory = maxDecodeMemory
    }

    private enum CodingKeys: String, CodingKey {
        case maxSourceBytes, maxSourcePixels, maxResultDimension, maxProcessingTime, maxAnimationFrames, jpegXL
        case maxJPEGScans, maxDecodeMemory, maxAnimationFramePixels, maxHEIFTiles, maxSourceFrames, svgDrawing, sanitizesSVG, pdfPages, videoThumbnails, encodingChild
    }

    /// Limits written before the frame, scan, memory and tile limits and
    /// JPEG XL existed read with their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(maxSourceBytes: try container.decode(Int.self, forKey: .maxSourceBytes),
                  maxSourcePixels: try container.decode(Int.self, forKey: .maxSourcePixels),
                  maxResultDimension: try container.decode(Int.self, forKey: .maxResultDimension),
                  maxProcessingTime: try container.decode(Duration.self, forKey: .maxProcessingTime),
                  maxAnimationFrames: try container.decodeIfPresent(Int.self, forKey: .maxAnimationFrames) ?? 100,
                  jpegXL: try container.decodeIfPresent(Bool.self, forKey: .jpegXL) ?? false,
                  maxJPEGScans: try container.decodeIfPresent(Int.self, forKey: .maxJPEGScans) ?? 100,
                  maxDecodeMemory: try container.decodeIfPresent(Int.self, forKey: .maxDecodeMemory) ?? ImageLimits.defaultDecodeMemory)
        maxAnimationFramePixels = try container.decodeIfPresent(Int.self, forKey: .maxAnimationFramePixels)
        maxHEIFTiles = try container.decodeIfPresent(Int.self, forKey: .maxHEIFTiles) ?? maxHEIFTiles
        maxSourceFrames = try container.decodeIfPresent(Int.self, forKey: .maxSourceFrames) ?? maxSourceFrames
        svgDrawing = try container.decodeIfPresent(SVGDrawing.self, forKey: .svgDrawing)
        sanitizesSVG = try container.decodeIfPresent(Bool.self, forKey: .sanitizesSVG) ?? true
        pdfPages = try container.decodeIfPresent(PDFPages.self, forKey: .pdfPages)
        videoThumbnails = try container.decodeIfPresent(VideoThumbnails.self, forKey: .videoThumbnails)
        encodingChild = try container.decodeIfPresent(EncodingChild.self, forKey: .encodingChild)
    }

    public static let `default` = ImageLimits()

    /// The default memory budget of a run on this machine, read once: a
    /// quarter of the memory the process may use (the cgroup's limit where
    /// it has one, else the machine's), so that two runs at their budget
    /// and the memory cache's eighth leave room; from 64 to 512 MiB. The
    /// ceiling is what a 12-megapixel photo needs as HEIC: x265 holds about
    /// 320 MB resident for it whatever its settings, in the encoding
    /// child, whose share comes out of this budget.
    public static let defaultDecodeMemory: Int = {
        let cgroup = LinuxMemoryPressureSource().read().limit.flatMap { $0 > 0 ? $0 : nil }
        let memory = cgroup ?? Int(clamping: ProcessInfo.processInfo.physicalMemory)
        return min(512 << 20, max(64 << 20, memory / 4))
    }()
}
