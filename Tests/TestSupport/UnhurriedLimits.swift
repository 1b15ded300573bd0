public import Darkroom

/// A processing time limit no busy machine reaches by accident: for the
/// tests whose subject is not that limit. The tests about it set their own,
/// with work that cannot finish within it at any speed.
public let unhurriedProcessingTime: Duration = .seconds(600)

extension ProcessingOptions {
    /// These options with the default time limit raised to
    /// ``unhurriedProcessingTime``; a limit a test set itself is kept.
    public var unhurried: ProcessingOptions {
        var options = self
        if options.limits.maxProcessingTime == ImageLimits.default.maxProcessingTime {
            options.limits.maxProcessingTime = unhurriedProcessingTime
        }
        return options
    }
}

extension ImageLimits {
    /// The default limits, with ``unhurriedProcessingTime``.
    public static var unhurried: ImageLimits {
        var limits = ImageLimits.default
        limits.maxProcessingTime = unhurriedProcessingTime
        return limits
    }
}
