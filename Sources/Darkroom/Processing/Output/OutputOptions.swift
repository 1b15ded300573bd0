/// How to encode a processed image.
public struct OutputOptions: Sendable, Hashable, Codable {
    /// The output format; `nil` keeps the source's format where Darkroom can
    /// write it, and otherwise writes JPEG (PNG when there is alpha).
    public var format: ImageFormat?
    /// Quality for JPEG, WebP and AVIF, 1...100.
    public var quality: Int
    /// Progressive (interlaced) JPEG.
    public var progressive: Bool
    /// With no ``format``: the formats the client takes. The source's
    /// format is kept only when it is among them; otherwise the first of
    /// them that suits the image (JPEG, or PNG when there is alpha). nil:
    /// any format Darkroom writes.
    public var acceptedFormats: Set<ImageFormat>?
    /// With no ``format``: imgproxy's preferred formats
    /// (`IMGPROXY_PREFERRED_FORMATS`): the source's format when it is
    /// listed; otherwise the first listed that can hold the answer (one
    /// that animates for an animation, one with alpha when there is alpha),
    /// else the first. The client's Accept plays no part, as in imgproxy.
    /// nil: Darkroom's own rule (``acceptedFormats``).
    public var preferredFormats: [ImageFormat]?
    /// A quality for some formats, over ``quality`` (imgproxy's
    /// `format_quality`): it applies when the answer turns out in that format.
    public var formatQuality: [ImageFormat: Int]
    /// The most bytes an answer in one of ``byteLimitedFormats`` may take:
    /// its quality is lowered until it fits, or down to 10 (imgproxy's
    /// `max_bytes`).
    public var maxBytes: Int?
    /// The formats ``maxBytes`` applies to: imgproxy's formats with a
    /// quality. (imgproxy counts TIFF too, whose quality only a
    /// JPEG-compressed TIFF uses; imgproxy's TIFF is uncompressed and
    /// Darkroom's lossless, so the limit changes neither's TIFF answers.)
    public static let byteLimitedFormats: Set<ImageFormat> = [.jpeg, .webp, .avif, .jxl, .heic]
    /// Sources in these formats are answered as they came, unprocessed,
    /// when the answer may be in their format (imgproxy's `skip_processing`).
    public var skipProcessing: Set<ImageFormat> = []
    /// Drop EXIF, XMP and IPTC (imgproxy's `strip_metadata`, on by default).
    public var stripMetadata = true
    /// While stripping, keep the EXIF copyright (imgproxy's
    /// `keep_copyright`, on by default).
    public var keepCopyright = true
    /// Turn RGB under another ICC profile into sRGB and drop the profile
    /// (imgproxy's `strip_color_profile`, on by default); off, the pixels
    /// stay as they are, with their profile.
    public var stripColourProfile = true
    /// The format an animated source is answered in when ``format`` cannot
    /// animate (JPEG, PNG, AVIF, TIFF) and was only a preference: a server
    /// that chose AVIF by the client's Accept sets WebP here. nil: a still
    /// image of the first frame, in ``format``.
    public var animationFormat: ImageFormat?
    /// Each format's settings past the quality.
    public var encoder = EncoderSettings()
    /// An SVG source is answered as SVG (sanitised, unprocessed) whatever
    /// ``format`` says: set where no format was asked for by name (``format``
    /// may then be one chosen by the client's Accept), as imgproxy answers
    /// an SVG asked without a format. Off, an SVG source is answered as SVG
    /// only when ``format`` is SVG, and is otherwise rendered.
    public var keepsVectors = false
    /// A source with more than 8 bits a sample keeps 16 where the answer's
    /// format carries them (PNG, TIFF, AVIF at 12 bits, JPEG XL) and every
    /// step works on them (resizes, crops, turns, flips, blur, sharpen), as
    /// imgproxy's `preserve_hdr`; otherwise 8-bit sRGB, as always.
    public var preserveHDR = false
    /// imgproxy Pro's `best` format: with no ``format``, the image is
    /// written in each candidate and the smallest answered. Candidates are
    /// JPEG and PNG, and WebP and AVIF where ``acceptedFormats`` names them;
    /// an image simpler than ``bestComplexityThreshold`` tries lossless
    /// PNG and WebP, any other the lossy formats at the quality asked.
    public var best = false
    /// The complexity below which `best` tries lossless encodings: the mean
    /// luma step between neighbouring pixels, 0 to 255, on a thumbnail of
    /// at most 256 pixels a side. Pro's default, 5.5.
    public var bestComplexityThreshold = 5.5
    /// Above this many pixels (0: never), `best` writes the one format it
    /// expects to win (AVIF, then WebP, then JPEG, or PNG for lossless)
    /// without trying the others (Pro's `BEST_FORMAT_MAX_RESOLUTION`).
    public var bestMaxPixels = 0
    /// imgproxy Pro's autoquality, for JPEG, WebP, AVIF, HEIC and JPEG XL
    /// answers; ``maxBytes`` takes its place where both are set.
    public var autoquality: Autoquality?
    /// The resolution a JPEG, PNG or TIFF answer states, in dots per inch
    /// (imgproxy Pro's `dpi`); 0 leaves the image's own.
    public var dpi = 0
    /// The colour profile the answer is converted to and carries (imgproxy
    /// Pro's `color_profile`), whatever ``stripColourProfile`` says; nil:
    /// none. Ignored for formats that carry none (GIF, BMP, ICO).
    public var colourProfile: ColourProfile?
    /// The most ``dpi`` takes.
    public static let dpiRange = 0...100_000
    /// The formats whose files state a resolution.
    static let resolutionFormats: Set<ImageFormat> = [.jpeg, .png, .tiff]

    /// The formats that carry more than 8 bits a sample.
    static let highBitDepthFormats: Set<ImageFormat> = [.png, .tiff, .avif, .jxl]

    /// Whether a source in `format` is answered as it came.
    func skips(_ format: ImageFormat) -> Bool {
        skipProcessing.contains(format) && (self.format ?? format) == format && acceptedFormats?.contains(format) ?? true
    }

    public init(format: ImageFormat? = nil, quality: Int = 85, progressive: Bool = false, formatQuality: [ImageFormat: Int] = [:]) {
        self.format = format
        self.quality = quality
        self.progressive = progressive
        self.formatQuality = formatQuality
    }

    /// The quality to write `format` at.
    public func quality(for format: ImageFormat) -> Int {
        formatQuality[format] ?? quality
    }

    var identifier: String {
        var text = "\(format?.rawValue ?? "source"):q\(quality)\(progressive ? ":progressive" : "")"
        // Only the formats this answer can turn out in count.
        let relevant = formatQuality.filter { format == nil || $0.key == format }
        if let maxBytes { text += ":mb\(maxBytes)" }
        if !skipProcessing.isEmpty { text += ":skip-" + skipProcessing.map(\.rawValue).sorted().joined(separator: "+") }
        if !stripMetadata { text += ":sm0" }
        if !keepCopyright { text += ":kcr0" }
        if !stripColourProfile { text += ":scp0" }
        if let animationFormat { text += ":anim-\(animationFormat.rawValue)" }
        if keepsVectors { text += ":vectors" }
        if preserveHDR { text += ":hdr" }
        if best, format == nil { text += ":best\(bestComplexityThreshold)-\(bestMaxPixels)" }
        if let autoquality { text += ":" + autoquality.identifier }
        if dpi > 0 { text += ":dpi\(dpi)" }
        if let colourProfile { text += ":icc-\(colourProfile.name)" }
        let encoderSettings = encoder.identifier
        if !encoderSettings.isEmpty { text += ":enc-" + encoderSettings }
        if !relevant.isEmpty {
            text += ":fq-" + relevant.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)\($0.value)" }.joined(separator: "+")
        }
        if format == nil, let preferredFormats {
            text += ":prefers-" + preferredFormats.map(\.rawValue).joined(separator: "+")
        }
        if format == nil, let acceptedFormats {
            text += ":accepts-" + acceptedFormats.map(\.rawValue).sorted().joined(separator: "+")
        }
        return text
    }

    /// The format to write when none was asked for: the source's when
    /// Darkroom writes it and the client takes it; else the first the
    /// client takes of JPEG, WebP, AVIF, PNG (PNG, WebP, AVIF first when
    /// there is alpha); else JPEG or PNG.
    func formatKeeping(_ source: ImageFormat, hasAlpha: Bool) -> ImageFormat {
        if let preferred = preferredFormats, let first = preferred.first {
            if preferred.contains(source) { return source }
            return preferred.first { !hasAlpha || $0.carriesAlpha } ?? first
        }
        let accepted = acceptedFormats ?? Set(ImageFormat.webFormats)
        if ImageFormat.webFormats.contains(source), accepted.contains(source) { return source }
        let order: [ImageFormat] = hasAlpha ? [.png, .webp, .avif, .jpeg] : [.jpeg, .webp, .avif, .png]
        return order.first { accepted.contains($0) && $0.canEncode } ?? (hasAlpha ? .png : .jpeg)
    }
}
