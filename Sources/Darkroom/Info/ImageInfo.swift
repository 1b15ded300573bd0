/// What an image is, without processing it: for `/info` and for clients
/// that draw a placeholder before the image arrives.
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
    public var exif: EXIFSummary
    /// The most common colour, coarsely binned, as `rrggbb`.
    public var dominantColour: String
    /// A BlurHash of 4 x 3 components (blurha.sh).
    public var blurHash: String
    /// A ThumbHash (evanw.github.io/thumbhash), in standard base64.
    public var thumbHash: String

    enum CodingKeys: String, CodingKey {
        case format, width, height, orientation, frames, exif
        case dominantColour = "dominant_color", blurHash = "blurhash", thumbHash = "thumbhash"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(orientation, forKey: .orientation)
        try container.encode(frames, forKey: .frames)
        try container.encode(exif, forKey: .exif)
        try container.encode(dominantColour, forKey: .dominantColour)
        try container.encode(blurHash, forKey: .blurHash)
        try container.encode(thumbHash, forKey: .thumbHash)
        var extra = encoder.container(keyedBy: ExtraKeys.self)
        try extra.encode(isAnimated, forKey: .animated)
    }

    private enum ExtraKeys: String, CodingKey { case animated }
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
