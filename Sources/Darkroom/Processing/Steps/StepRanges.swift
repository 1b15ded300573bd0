/// The ranges a step's numbers are held to, declared once for every door
/// that takes them: the URL parser, the command line's filters and the run
/// itself, so that no door lets through what another refuses.
public enum StepRanges {
    /// Sepia's strength, a colour's opacity, an effect's intensity, an alpha.
    public static let fraction = 0.0...1.0
    /// A Gaussian blur's sigma in pixels (0 in a URL: no blur); bounded by
    /// the image's size too, when it runs.
    public static let blurSigma = 0.0...100.0
    /// Sharpening's sigma in pixels (0 in a URL: none).
    public static let sharpenSigma = 0.0...10.0
    /// A pixelation block's side in pixels (0 or 1 in a URL: none).
    public static let pixelateSize = 0...10_000
    public static let brightness = -255...255
    public static let contrast = 0.0...100.0
    public static let saturation = 0.0...100.0
    /// Trim's colour distance.
    public static let trimThreshold = 0.0...255.0
    /// An angle in degrees (gradients, progressive blur).
    public static let angle = -3600.0...3600.0
    /// A zoom factor (above 0).
    public static let zoom = 0.0...100.0
    /// A side in pixels: a size asked for, a crop, padding, a limit (0 in a
    /// URL: the whole side, or none).
    public static let side = 0...100_000
    /// An offset from a gravity's edge, in pixels.
    public static let offset = -100_000.0...100_000.0
    /// Unsharp masking's weight and divider.
    public static let unsharpWeight = 0.0...100.0
    public static let unsharpDivider = 0.0...10_000.0
    /// A watermark's scale against the image (0: its own size), its turn
    /// in degrees, its shadow's sigma and a tiled mark's spacing in pixels.
    public static let watermarkScale = 0.0...100.0
    public static let watermarkAngle = -360.0...360.0
    public static let shadowSigma = 0.0...100.0
    public static let watermarkSpacing = 0.0...10_000.0
    /// `crop_objects`' scale of the objects' box; a class's weight in
    /// object gravity.
    public static let objectScale = 0.0...100.0
    public static let objectWeight = 0.0...1_000_000.0
    /// An encoder's quality (0 in a URL: the server's default).
    public static let quality = 1...100
    /// A page or frame of a document or animation, from 0.
    public static let page = 0...100_000
    /// `/info`'s palette size (0 in a URL: none) and blurhash components.
    public static let paletteColours = 2...256
    public static let blurHashComponents = 1...9

    /// A bound as messages and the option pages write it, as cache keys
    /// write numbers: whole numbers without a fraction.
    public static func text(_ value: Double) -> String { ImageOperation.format(value) }

    /// `0...100`.
    public static func text(_ range: ClosedRange<Double>) -> String { "\(text(range.lowerBound))...\(text(range.upperBound))" }
    public static func text(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)...\(range.upperBound)" }
}
