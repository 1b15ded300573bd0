/// What an ``ImageInfo`` holds beyond the source's header and placeholders:
/// imgproxy Pro's info options. The defaults are Pro's: EXIF, IPTC and XMP
/// on; everything that needs the pixels off.
public struct InfoOptions: Sendable, Hashable {
    /// The source's size in bytes, its format, and its width and height
    /// (Pro's `s`, `f` and `d`, on unless asked off).
    public var size = true
    public var format = true
    public var dimensions = true
    /// Every EXIF field, by libexif's titles ("Date and Time (Original)")
    /// or with `exifCanonicalNames` by the tag's name ("DateTimeOriginal").
    public var exif = true
    public var exifCanonicalNames = false
    /// IPTC-IIM datasets and Photoshop's resolution record.
    public var iptc = true
    /// XMP properties, by namespace prefix.
    public var xmp = true
    public var colourspace = false
    public var bands = false
    public var sampleFormat = false
    public var pagesNumber = false
    /// Whether the image has an alpha channel; with `checkTransparency`,
    /// also whether any pixel is less than opaque (computes every pixel).
    public var alpha = false
    public var checkTransparency = false
    /// Where a crop of this size and gravity falls, as fractions.
    public var crop: InfoCrop?
    /// Where object gravity puts the faces in that crop (Pro's `op`).
    public var objectsPosition = ObjectsPosition.centre
    /// A palette of at most this many colours: 0 (none), or 2 to 256.
    public var paletteColours = 0
    public var average = false
    /// The average leaves fully transparent pixels out.
    public var averageIgnoresTransparent = true
    /// Vibrant, light vibrant, dark vibrant, muted, light muted and dark
    /// muted; with `buildMissed`, those the image lacks are made from the
    /// ones it has.
    public var dominantColours = false
    public var buildMissedColours = false
    /// The BlurHash's components: 1 to 9 each.
    public var blurHashComponents = (x: 4, y: 3)
    /// ThumbHash as Pro writes it too: hex, beside Darkroom's base64.
    public var thumbHashHex = false
    public var perceptualHash = false
    /// Checksums of the source's bytes.
    public var hashsums: [Hashsum.Kind] = []
    /// The frame or page of a GIF, WebP or TIFF source described, from 0.
    public var page = 0
    /// The faces found, as fractions of the upright image (Pro's `do`).
    public var detectObjects = false
    /// A video's container tags and streams (Pro's `vm`, on by default).
    public var videoMeta = true
    /// A video source's frame described (Pro's `vts` and `vtk` on `/info`),
    /// over the server's.
    public var videoSecond: Double?
    public var videoKeyframes: Bool?

    public init() {}

    public static func == (lhs: InfoOptions, rhs: InfoOptions) -> Bool {
        lhs.key == rhs.key
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    /// Every option as text, for comparing and hashing.
    var key: String {
        [size, format, dimensions, exif, exifCanonicalNames, iptc, xmp, colourspace, bands, sampleFormat, pagesNumber, alpha, checkTransparency,
         average, averageIgnoresTransparent, dominantColours, buildMissedColours, thumbHashHex, perceptualHash, detectObjects, videoMeta]
            .map { $0 ? "1" : "0" }.joined()
            + ":\(crop.map { "\($0.width)x\($0.height)@\($0.gravity.key)" } ?? "-"):\(paletteColours)"
            + ":\(blurHashComponents.x)x\(blurHashComponents.y):\(hashsums.map(\.rawValue).joined(separator: ",")):p\(page)"
            + (objectsPosition == .centre ? "" : ":\(objectsPosition.identifier)")
            + (videoSecond.map { ":vts\($0)" } ?? "") + (videoKeyframes.map { ":vtk\($0 ? 1 : 0)" } ?? "")
    }

    /// Why these options cannot be answered, or nil.
    public var problem: String? {
        if !StepRanges.page.contains(page) { return "a page is \(StepRanges.page.lowerBound) to \(StepRanges.page.upperBound), not \(page)" }
        if paletteColours != 0, !StepRanges.paletteColours.contains(paletteColours) {
            return "a palette has \(StepRanges.paletteColours.lowerBound) to \(StepRanges.paletteColours.upperBound) colours, not \(paletteColours)"
        }
        if !StepRanges.blurHashComponents.contains(blurHashComponents.x) || !StepRanges.blurHashComponents.contains(blurHashComponents.y) {
            return "a BlurHash has \(StepRanges.blurHashComponents.lowerBound) to \(StepRanges.blurHashComponents.upperBound) components each way, not \(blurHashComponents.x) x \(blurHashComponents.y)"
        }
        if let crop {
            for side in [crop.width, crop.height] where !side.isFinite || side < 0 || side > Double(StepRanges.side.upperBound) {
                return "a crop's side is 0 (the whole side), a fraction below 1, or pixels up to \(StepRanges.side.upperBound), not \(side)"
            }
            if !crop.gravity.isValid || crop.gravity.kind == .focusPoint && !(StepRanges.fraction.contains(crop.gravity.x) && StepRanges.fraction.contains(crop.gravity.y)) {
                return "the crop's gravity \(crop.gravity.key) is out of range"
            }
        }
        if !objectsPosition.gravity.isValid || objectsPosition.gravity.readsPixels {
            return "objects position \(objectsPosition.gravity.key) is not a side, a corner, the centre or a focus point"
        }
        return nil
    }
}

/// A crop asked of `/info`: sides in pixels from 1 up, fractions below 1,
/// or 0 for the whole side, as imgproxy's `crop`.
public struct InfoCrop: Sendable, Hashable {
    public var width: Double
    public var height: Double
    public var gravity: Gravity

    public init(width: Double, height: Double, gravity: Gravity = .centre) {
        self.width = width
        self.height = height
        self.gravity = gravity
    }
}
