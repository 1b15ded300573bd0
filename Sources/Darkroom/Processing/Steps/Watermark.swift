public import Foundation

/// An image or text laid over results (imgproxy's `wm`, and its Pro
/// edition's `wmt`, `wmu`, `wms`, `wmr` and `wmsh`), its opacity, where it
/// goes, how large it is, its turn and its shadow.
public struct Watermark: Sendable, Hashable, Codable {
    /// What is laid over the result.
    public enum Content: Sendable, Hashable, Codable {
        case image(WatermarkImage)
        /// Pango markup (plain text is markup too), at most
        /// ``Watermark/maxTextLength`` characters, as imgproxy Pro draws it:
        /// black `sans 16` unless the markup says otherwise, wrapped at the
        /// result's width. Fonts it names must be installed.
        case text(String)
    }

    /// The longest text watermark, in characters of markup.
    public static let maxTextLength = 1024

    /// Whether `text` may be a text watermark: 1 to ``maxTextLength``
    /// characters, without control characters but line breaks.
    public static func isValidText(_ text: String) -> Bool {
        !text.isEmpty && text.count <= maxTextLength
            && !text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }
    }

    /// Why a text failed ``isValidText(_:)``.
    public static let textRule = "a text watermark is 1 to \(maxTextLength) characters, without control characters but line breaks"

    public var content: Content
    /// 0 (invisible) to 1 (as the image is).
    public var opacity: Double
    /// A side, a corner or the centre, with offsets in pixels from it; the
    /// same kinds as a crop's gravity but smart and focus point.
    public var gravity: Gravity
    /// Tiled over the whole result (imgproxy's `re` position); the offsets
    /// are then the space between tiles.
    public var replicate: Bool
    /// With ``replicate``, every other tile left empty, as a chessboard's
    /// squares (imgproxy Pro's `ch` position).
    public var chessboard = false
    /// The watermark's width as a fraction of the result's (0: its own size).
    public var scale: Double
    /// Without a `scale`: fitted into this many CSS pixels, enlarged if need
    /// be; 0 for a side follows the other by the aspect ratio, 0 for both
    /// keeps its size (imgproxy Pro's `wms`).
    public var fitWidth = 0
    public var fitHeight = 0
    /// Degrees clockwise, -360 to 360 (Pro's `wmr`); any angle, onto
    /// transparency.
    public var rotation: Double = 0
    /// Above 0: a soft black shadow whose blur has this sigma, in pixels
    /// (Pro's `wmsh`), up to 100.
    public var shadowSigma: Double = 0

    public init(image: WatermarkImage, opacity: Double, gravity: Gravity = .centre, replicate: Bool = false, scale: Double = 0) {
        self.init(.image(image), opacity: opacity, gravity: gravity, replicate: replicate, scale: scale)
    }

    public init(text: String, opacity: Double, gravity: Gravity = .centre, replicate: Bool = false, scale: Double = 0) {
        self.init(.text(text), opacity: opacity, gravity: gravity, replicate: replicate, scale: scale)
    }

    public init(_ content: Content, opacity: Double, gravity: Gravity = .centre, replicate: Bool = false, scale: Double = 0) {
        self.content = content
        self.opacity = opacity
        self.gravity = gravity
        self.replicate = replicate
        self.scale = scale
    }

    /// A stable text form for cache keys: the image or the text by its
    /// checksum.
    var identifier: String {
        let what = switch content {
        case .image(let image): image.key
        case .text(let text): "text-" + String(Checksum.of(Data(text.utf8)), radix: 16)
        }
        var key = "watermark:\(what):\(ImageOperation.format(opacity)):\(replicate ? "\(chessboard ? "chessboard" : "replicate"):\(ImageOperation.format(gravity.x)):\(ImageOperation.format(gravity.y))" : gravity.key):\(ImageOperation.format(scale))"
        if fitWidth != 0 || fitHeight != 0 { key += ":fit:\(fitWidth)x\(fitHeight)" }
        if rotation != 0 { key += ":turn:" + ImageOperation.format(rotation) }
        if shadowSigma != 0 { key += ":shadow:" + ImageOperation.format(shadowSigma) }
        return key
    }
}

/// The bytes of a watermark image, read once (at a server's start) and
/// shared by every request that uses it; compared by a checksum, so that
/// a request's options compare and hash without touching the bytes.
public final class WatermarkImage: Sendable, Hashable, Codable {
    public let data: Data
    /// The checksum of `data`, in hex.
    public let key: String

    public init(data: Data) {
        self.data = data
        key = String(Checksum.of(data), radix: 16)
    }

    /// A watermark known by another name than its bytes' checksum: one
    /// fetched per request is keyed by its URL, so that the result's cache
    /// key is known before the fetch. `data` may be empty until then.
    public init(data: Data, key: String) {
        self.data = data
        self.key = key
    }

    public static func == (lhs: WatermarkImage, rhs: WatermarkImage) -> Bool { lhs.key == rhs.key && lhs.data == rhs.data }
    public func hash(into hasher: inout Hasher) { hasher.combine(key) }

    public convenience init(from decoder: any Decoder) throws {
        self.init(data: try decoder.singleValueContainer().decode(Data.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(data)
    }
}
