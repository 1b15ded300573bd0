extension ImageOperation {
    /// Parses a filter as the command line writes it: `NAME[:ARG]`, such as
    /// `sepia`, `sepia:0.8`, `grayscale`, `blur:2` or `sharpen`.
    ///
    /// - Throws: ``DarkroomError/Kind/invalidOption`` naming what was wrong.
    public init(filter text: String) throws(DarkroomError) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        let name = parts[0].lowercased()
        let argument = parts.count > 1 ? parts[1] : nil

        func number(default value: Double?, range: ClosedRange<Double>) throws(DarkroomError) -> Double {
            guard let argument else {
                if let value { return value }
                throw .invalidOption("filter '\(name)' needs a number, as in '\(name):2'")
            }
            guard let parsed = Double(argument), parsed.isFinite else {
                throw .invalidOption("filter '\(name)': '\(argument)' is not a number")
            }
            // A sigma of 0 blurs nothing: above 0 here, as the run asks.
            guard range.contains(parsed), name == "sepia" || parsed > 0 else {
                throw .invalidOption("filter '\(name)': \(argument) is outside \(name == "sepia" ? "" : "above ")\(StepRanges.text(range))")
            }
            return parsed
        }

        switch name {
        case "sepia":
            self = .sepia(intensity: try number(default: Self.defaultSepiaIntensity, range: StepRanges.fraction))
        case "grayscale", "greyscale", "gray", "grey":
            guard argument == nil else { throw .invalidOption("filter 'grayscale' takes no argument") }
            self = .grayscale
        case "blur":
            self = .blur(sigma: try number(default: nil, range: StepRanges.blurSigma))
        case "sharpen":
            self = .sharpen(sigma: try number(default: 1, range: StepRanges.sharpenSigma))
        default:
            throw .invalidOption("unknown filter '\(parts[0])' (known: sepia[:INTENSITY], grayscale, blur:SIGMA, sharpen[:SIGMA])")
        }
    }
}
