public import Darkroom

/// Which formats a client's Accept header may choose, as imgproxy's
/// `IMGPROXY_AUTO_WEBP`, `_AUTO_AVIF`, `_AUTO_JXL` and `IMGPROXY_ENFORCE_*`
/// switches decide it: an automatic format answers a URL that names none
/// when the client takes it; an enforced one answers even a URL that names
/// another. JPEG XL first, then AVIF, then WebP, as imgproxy prefers them.
public struct FormatNegotiation: Sendable, Hashable {
    /// The formats chosen for a URL without one; Darkroom's default: AVIF
    /// and WebP.
    public var automatic: Set<ImageFormat> = [.avif, .webp]
    /// The formats chosen whatever the URL names; none by default.
    public var enforced: Set<ImageFormat> = []

    public init(automatic: Set<ImageFormat> = [.avif, .webp], enforced: Set<ImageFormat> = []) {
        self.automatic = automatic
        self.enforced = enforced
    }

    /// The formats a client may be answered in without asking by name.
    public static let negotiable: [ImageFormat] = [.jxl, .avif, .webp]

    /// The format for a URL that names none, or nil: the source's.
    func automatic(for accept: AcceptedFormats) -> ImageFormat? {
        Self.negotiable.first { (automatic.contains($0) || enforced.contains($0)) && accept.named.contains($0) }
    }

    /// The format that answers a URL naming `asked`, where one is enforced.
    func enforced(for accept: AcceptedFormats) -> ImageFormat? {
        Self.negotiable.first { enforced.contains($0) && accept.named.contains($0) }
    }
}
