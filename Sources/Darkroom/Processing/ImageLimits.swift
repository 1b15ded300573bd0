/// Limits checked before any pixel is decoded.
public struct ImageLimits: Sendable, Hashable, Codable {
    /// The largest source, in bytes. Default 50 MB.
    public var maxSourceBytes: Int
    /// The largest source, in pixels (width x height). Default 50 megapixels.
    public var maxSourcePixels: Int

    public init(maxSourceBytes: Int = 50_000_000, maxSourcePixels: Int = 50_000_000) {
        self.maxSourceBytes = maxSourceBytes
        self.maxSourcePixels = maxSourcePixels
    }

    public static let `default` = ImageLimits()
}
