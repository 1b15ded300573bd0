import Foundation

/// An image file format that Darkroom can read, and for some, write.
public enum ImageFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, webp, avif, heic, tiff, gif
    /// JPEG XL: read and written only where ``ImageLimits/jpegXL`` allows
    /// it, as libvips marks its decoder untrusted.
    case jxl
    /// Written only, as imgproxy writes them: BMP uncompressed, ICO as one
    /// PNG of at most 256 pixels a side.
    case bmp, ico
    /// Read, sanitised; answered as SVG when no format is asked for by name
    /// (``OutputOptions/keepsVectors``), else rendered where
    /// ``ImageLimits/svgRendering`` allows it. Never written from pixels.
    case svg
    /// Read only, a page at a time, where ``ImageLimits/pdfPages`` allows
    /// it (drawn in a child process); never written.
    case pdf
    /// A video (MP4, QuickTime, WebM, Matroska, AVI), read only, by one
    /// frame, where ``ImageLimits/videoThumbnails`` allows it (decoded in a
    /// child process); never written.
    case video

    /// Formats that Darkroom can encode.
    public static let encodable: [ImageFormat] = [.jpeg, .png, .webp, .avif, .gif, .tiff, .jxl, .heic, .bmp, .ico]

    /// Formats Darkroom reads.
    public static let decodable: [ImageFormat] = [.jpeg, .png, .webp, .avif, .heic, .tiff, .gif, .jxl, .svg, .pdf, .video]

    /// The formats an answer takes without being asked for one: those
    /// browsers show and that suit photos. GIF and TIFF are written only
    /// when asked for by name.
    public static let webFormats: [ImageFormat] = [.jpeg, .png, .webp, .avif]

    public var canEncode: Bool { Self.encodable.contains(self) }

    /// Whether Darkroom reads and writes animations in this format.
    public var animates: Bool { self == .gif || self == .webp }

    /// Whether Darkroom writes this format with an alpha channel (JPEG,
    /// BMP and HEIC answers are flattened).
    public var carriesAlpha: Bool { [.png, .webp, .avif, .gif, .tiff, .jxl, .ico].contains(self) }

    /// The MIME type, such as "image/jpeg"; imgproxy's names for HEIC
    /// and ICO.
    public var mimeType: String {
        switch self {
        case .heic: "image/heif"
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .video: "video/mp4"
        default: "image/\(rawValue)"
        }
    }

    /// The usual file name extension, without the dot.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .tiff: "tif"
        default: rawValue
        }
    }

    /// Parses a name or extension, such as "jpg", "JPEG" or "webp".
    public init?(name: String) {
        switch name.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "tif", "tiff": self = .tiff
        case "heif", "heic": self = .heic
        case "jxl", "jpegxl", "jpeg-xl": self = .jxl
        default:
            guard let format = ImageFormat(rawValue: name.lowercased()) else { return nil }
            self = format
        }
    }
}
