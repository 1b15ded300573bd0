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

    public init(maxSourceBytes: Int = 50_000_000, maxSourcePixels: Int = 50_000_000,
                maxResultDimension: Int = 8192, maxProcessingTime: Duration = .seconds(20)) {
        self.maxSourceBytes = maxSourceBytes
        self.maxSourcePixels = maxSourcePixels
        self.maxResultDimension = maxResultDimension
        self.maxProcessingTime = maxProcessingTime
    }

    public static let `default` = ImageLimits()
}
