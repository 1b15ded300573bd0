/// Limits on one processing run: the source's size, checked before any
/// pixel is decoded; the result's size, checked before any pixel is
/// computed; and the time the run may take.
public struct ImageLimits: Sendable, Hashable, Codable {
    /// The largest source, in bytes. Default 50 MB.
    public var maxSourceBytes: Int
    /// The largest source, in pixels (width x height). Default 50 megapixels.
    public var maxSourcePixels: Int
    /// The largest width or height of a result, or of any step's image on
    /// the way to it. Default 8192, as imgproxy's `max_result_dimension`.
    public var maxResultDimension: Int
    /// How long one run may compute; past it, libvips is stopped through
    /// the kill switch and the run fails with
    /// ``DarkroomError/Kind/processingTimedOut``. Default 20 seconds.
    public var maxProcessingTime: Duration
    /// The most frames of an animated GIF or WebP that are decoded and
    /// answered, from the first (imgproxy's `max_animation_frames`); the
    /// rest are dropped. The pixel limit counts every decoded frame. 1
    /// answers the first frame as a still image. Default 100.
    public var maxAnimationFrames: Int
    /// Whether JPEG XL sources are read and JPEG XL answers written. Off by
    /// default: libvips marks its JPEG XL decoder untrusted (not yet
    /// hardened against hostile files). The other limits apply as to any
    /// format.
    public var jpegXL: Bool

    public init(maxSourceBytes: Int = 50_000_000, maxSourcePixels: Int = 50_000_000,
                maxResultDimension: Int = 8192, maxProcessingTime: Duration = .seconds(20),
                maxAnimationFrames: Int = 100, jpegXL: Bool = false) {
        self.maxSourceBytes = maxSourceBytes
        self.maxSourcePixels = maxSourcePixels
        self.maxResultDimension = maxResultDimension
        self.maxProcessingTime = maxProcessingTime
        self.maxAnimationFrames = maxAnimationFrames
        self.jpegXL = jpegXL
    }

    private enum CodingKeys: String, CodingKey {
        case maxSourceBytes, maxSourcePixels, maxResultDimension, maxProcessingTime, maxAnimationFrames, jpegXL
    }

    /// Limits written before the frame limit and JPEG XL existed read with
    /// their defaults.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(maxSourceBytes: try container.decode(Int.self, forKey: .maxSourceBytes),
                  maxSourcePixels: try container.decode(Int.self, forKey: .maxSourcePixels),
                  maxResultDimension: try container.decode(Int.self, forKey: .maxResultDimension),
                  maxProcessingTime: try container.decode(Duration.self, forKey: .maxProcessingTime),
                  maxAnimationFrames: try container.decodeIfPresent(Int.self, forKey: .maxAnimationFrames) ?? 100,
                  jpegXL: try container.decodeIfPresent(Bool.self, forKey: .jpegXL) ?? false)
    }

    public static let `default` = ImageLimits()
}
