import Darkroom

/// The ranges of numbers only URLs take, declared once for the rules and
/// the option pages (a step's own numbers are ``StepRanges``, which the
/// command line and the run hold them to as well).
enum URLRanges {
    /// `dpr`, above 0.
    static let dpr = 0.0...100.0
    /// `rotate`, in degrees, a multiple of 90.
    static let rotation = -3600...3600
    /// `expires`: a Unix time in whole seconds, to the end of year 9999
    /// either way.
    static let unixTime = -253_402_300_799...253_402_300_799
    /// `max_bytes`.
    static let resultBytes = 0...1_000_000_000
    /// `max_src_resolution` and `max_animation_frame_resolution`, in megapixels.
    static let megapixels = 0.0...10_000.0
    /// `max_src_file_size`.
    static let sourceBytes = 0...10_000_000_000
    /// `classify`'s top K.
    static let topK = 0...1000
    /// `autoquality`'s target: a size in bytes, or a DSSIM; its qualities;
    /// its allowed error.
    static let targetBytes = 1.0...10_000_000_000.0
    static let dssim = 0.0...1.0
    static let allowedError = 0.0...1.0
}
