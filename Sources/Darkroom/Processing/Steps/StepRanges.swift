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
}
