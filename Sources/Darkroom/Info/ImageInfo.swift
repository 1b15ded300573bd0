/// What an image is, without processing it: for `/info` and for clients
/// that draw a placeholder before the image arrives. The optional fields
/// are imgproxy Pro's, present when ``InfoOptions`` asks for them, under
/// Pro's names, so a Pro client reads them as it reads Pro's.
public struct ImageInfo: Sendable, Hashable, Codable {
    public var format: ImageFormat
    /// Upright: after the EXIF orientation is applied.
    public var width: Int
    public var height: Int
    /// The EXIF orientation, 1 to 8 (1: as stored).
    public var orientation: Int
    /// Frames: more than 1 for an animated GIF or WebP.
    public var frames: Int
    public var isAnimated: Bool { frames > 1 }
    /// The EXIF fields people ask about (`exif_summary` in JSON).
    public var exif: EXIFSummary
    /// The most common colour, coarsely binned, as `rrggbb`.
    public var dominantColour: String
    /// A BlurHash, of 4 x 3 components unless asked otherwise (blurha.sh).
    public var blurHash: String
    /// A ThumbHash (evanw.github.io/thumbhash), in standard base64.
    public var thumbHash: String

    /// Whether the format (with its MIME type), and the width and height,
    /// are in the JSON (Pro's `f:0` and `d:0` leave them out).
    public var answersFormat = true
    public var answersDimensions = true

    // imgproxy Pro's fields.
    /// The source's size in bytes.
    public var size: Int?
    /// Every EXIF field, by title or tag name (``InfoOptions/exifCanonicalNames``).
    public var exifFields: [String: String]?
    public var iptc: [String: MetadataValue]?
    public var photoshop: [String: MetadataValue]?
    public var xmp: [String: MetadataValue]?
    public var colourspace: String?
    public var bands: Int?
    public var sampleFormat: String?
    public var pagesNumber: Int?
    public var hasAlpha: Bool?
    /// Whether any pixel is less than opaque.
    public var hasTransparency: Bool?
    public var crop: RelativeRect?
    public var palette: [PaletteColour]?
    public var average: PaletteColour?
    /// By Pro's names: `vibrant`, `light_vibrant`, `dark_muted`, ...
    public var dominantColours: [String: PaletteColour]?
    /// ``thumbHash``'s bytes in uppercase hex, as Pro writes them.
    public var thumbHashHex: String?
    public var perceptualHash: String?
    /// By kind: `md5`, `sha1`, `sha256`, `sha512`; lowercase hex.
    public var hashsums: [String: String]?
    /// The faces found, their boxes as fractions of the upright image.
    public var objects: [DetectedObject]?
    /// A video's container tags and streams (Pro's `video_meta`,
    /// `video_streams`).
    public var videoMeta: [String: String]?
    public var videoStreams: [VideoStream]?

    public init(format: ImageFormat, width: Int, height: Int, orientation: Int, frames: Int, exif: EXIFSummary,
                dominantColour: String, blurHash: String, thumbHash: String) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.frames = frames
        self.exif = exif
        self.dominantColour = dominantColour
        self.blurHash = blurHash
        self.thumbHash = thumbHash
    }

    /// A crop's place as fractions of the upright image.
    public struct RelativeRect: Sendable, Hashable, Codable {
        public var left: Double
        public var top: Double
        public var width: Double
        public var height: Double
    }

    enum CodingKeys: String, CodingKey {
        case format, width, height, orientation, frames
        case exif = "exif_summary", dominantColour = "dominant_color", blurHash = "blurhash", thumbHash = "thumbhash"
        case size, exifFields = "exif", iptc, photoshop, xmp, colourspace = "colorspace", bands, sampleFormat = "sample_format"
        case pagesNumber = "pages_number", hasAlpha = "alpha", hasTransparency = "transparency", crop, palette, average
        case dominantColours = "dominant_colors", thumbHashHex = "thumb_hash", perceptualHash = "perceptual_hash", hashsums, objects
        case videoMeta = "video_meta", videoStreams = "video_streams"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if answersFormat { try container.encode(format, forKey: .format) }
        if answersDimensions {
            try container.encode(width, forKey: .width)
            try container.encode(height, forKey: .height)
        }
        try container.encode(orientation, forKey: .orientation)
        try container.encode(frames, forKey: .frames)
        try container.encode(exif, forKey: .exif)
        try container.encode(dominantColour, forKey: .dominantColour)
        try container.encode(blurHash, forKey: .blurHash)
        try container.encode(thumbHash, forKey: .thumbHash)
        try container.encodeIfPresent(size, forKey: .size)
        try container.encodeIfPresent(exifFields, forKey: .exifFields)
        try container.encodeIfPresent(iptc, forKey: .iptc)
        try container.encodeIfPresent(photoshop, forKey: .photoshop)
        try container.encodeIfPresent(xmp, forKey: .xmp)
        try container.encodeIfPresent(colourspace, forKey: .colourspace)
        try container.encodeIfPresent(bands, forKey: .bands)
        try container.encodeIfPresent(sampleFormat, forKey: .sampleFormat)
        try container.encodeIfPresent(pagesNumber, forKey: .pagesNumber)
        try container.encodeIfPresent(hasAlpha, forKey: .hasAlpha)
        try container.encodeIfPresent(hasTransparency, forKey: .hasTransparency)
        try container.encodeIfPresent(crop, forKey: .crop)
        try container.encodeIfPresent(palette, forKey: .palette)
        try container.encodeIfPresent(average, forKey: .average)
        try container.encodeIfPresent(dominantColours, forKey: .dominantColours)
        try container.encodeIfPresent(thumbHashHex, forKey: .thumbHashHex)
        try container.encodeIfPresent(perceptualHash, forKey: .perceptualHash)
        try container.encodeIfPresent(hashsums, forKey: .hashsums)
        try container.encodeIfPresent(objects, forKey: .objects)
        try container.encodeIfPresent(videoMeta, forKey: .videoMeta)
        try container.encodeIfPresent(videoStreams, forKey: .videoStreams)
        var extra = encoder.container(keyedBy: ExtraKeys.self)
        try extra.encode(isAnimated, forKey: .animated)
        if answersFormat { try extra.encode(format.mimeType, forKey: .mimeType) }
    }

    private enum ExtraKeys: String, CodingKey { case animated, mimeType = "mime_type" }
}

/// The EXIF fields people ask about, as the camera wrote them (libvips'
/// readable forms: "f/5.6", "1/80 sec.", "107.0 mm"); nil where absent.
/// GPS only when asked for: a photo's place is personal.
public struct EXIFSummary: Sendable, Hashable, Codable {
    public var make: String?
    public var model: String?
    public var lens: String?
    /// As written, "2008:01:22 03:28:22".
    public var dateTaken: String?
    public var exposureTime: String?
    public var fNumber: String?
    public var iso: String?
    public var focalLength: String?
    public var gps: GPSPosition?

    public struct GPSPosition: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double
    }

    enum CodingKeys: String, CodingKey {
        case make, model, lens, iso, gps
        case dateTaken = "date_taken", exposureTime = "exposure_time", fNumber = "f_number", focalLength = "focal_length"
    }

    /// From libvips' EXIF fields, read by `field`.
    init(field: (String) -> String?, includeGPS: Bool) {
        func readable(_ name: String) -> String? { field(name).flatMap(Self.readable) }
        make = readable("exif-ifd0-Make")
        model = readable("exif-ifd0-Model")
        lens = readable("exif-ifd2-LensModel")
        dateTaken = readable("exif-ifd2-DateTimeOriginal") ?? readable("exif-ifd0-DateTime")
        exposureTime = readable("exif-ifd2-ExposureTime")
        fNumber = readable("exif-ifd2-FNumber")
        iso = readable("exif-ifd2-ISOSpeedRatings") ?? readable("exif-ifd2-PhotographicSensitivity")
        focalLength = readable("exif-ifd2-FocalLength")
        if includeGPS,
           let latitude = field("exif-ifd3-GPSLatitude").flatMap(Self.degrees),
           let longitude = field("exif-ifd3-GPSLongitude").flatMap(Self.degrees) {
            let south = field("exif-ifd3-GPSLatitudeRef").flatMap(Self.readable)?.uppercased().hasPrefix("S") == true
            let west = field("exif-ifd3-GPSLongitudeRef").flatMap(Self.readable)?.uppercased().hasPrefix("W") == true
            gps = GPSPosition(latitude: south ? -latitude : latitude, longitude: west ? -longitude : longitude)
        }
    }

    /// The readable part of libvips' "VALUE (READABLE, TYPE, N components,
    /// M bytes)": READABLE, which may itself hold commas; nil when empty.
    static func readable(_ text: String) -> String? {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")") else {
            let plain = text.trimmingCharacters(in: .whitespaces)
            return plain.isEmpty ? nil : plain
        }
        let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
        let parts = inner.components(separatedBy: ", ")
        guard parts.count > 3 else { return nil }
        let value = parts.dropLast(3).joined(separator: ", ").trimmingCharacters(in: .whitespaces)
        return value.isEmpty || value.count > 200 ? nil : value
    }

    /// Degrees from a GPS position's raw rationals, "41/1 53/1 2470/100":
    /// degrees, minutes and seconds. Nil unless three finite rationals in range.
    static func degrees(_ text: String) -> Double? {
        let raw = text.split(separator: "(").first.map(String.init) ?? text
        let values = raw.split(separator: " ").compactMap { part -> Double? in
            let fraction = part.split(separator: "/")
            guard fraction.count == 2, let top = Double(fraction[0]), let bottom = Double(fraction[1]), bottom != 0 else { return nil }
            return top / bottom
        }
        guard values.count == 3, values.allSatisfy({ $0.isFinite && $0 >= 0 }) else { return nil }
        let degrees = values[0] + values[1] / 60 + values[2] / 3600
        return degrees <= 180 ? degrees : nil
    }
}
