/// How to encode a processed image.
public struct OutputOptions: Sendable, Hashable, Codable {
    /// The output format; `nil` keeps the source's format where Darkroom can
    /// write it, and otherwise writes JPEG (PNG when there is alpha).
    public var format: ImageFormat?
    /// Quality for JPEG, WebP and AVIF, 1...100.
    public var quality: Int
    /// Progressive (interlaced) JPEG.
    public var progressive: Bool

    public init(format: ImageFormat? = nil, quality: Int = 85, progressive: Bool = false) {
        self.format = format
        self.quality = quality
        self.progressive = progressive
    }

    var identifier: String {
        "\(format?.rawValue ?? "source"):q\(quality)\(progressive ? ":progressive" : "")"
    }
}
