public import Darkroom

/// imgproxy Pro's `aq`/`autoquality:METHOD:TARGET:MIN:MAX:ALLOWED_ERROR`,
/// each argument optional over the server's own setting (`--autoquality`,
/// read the same way). `none` turns it off; `ml` is `dssim`, as Pro falls
/// back to it without a model.
public struct AutoqualityOverride: Sendable, Hashable {
    /// nil: off.
    public var method: Autoquality.Method?
    public var target: Double?
    public var minQuality: Int?
    public var maxQuality: Int?
    public var allowedError: Double?

    /// Reads the arguments after the option's name.
    public static func parse(_ values: [String], name: String) throws(ImageURLError) -> AutoqualityOverride {
        guard (1...5).contains(values.count) else { throw .init("option '\(name)' takes 1 to 5 arguments, not \(values.count)") }
        var result = AutoqualityOverride()
        switch values[0].lowercased() {
        case "none": return result
        case "size": result.method = .size
        case "dssim", "ml": result.method = .dssim
        default: throw .init("option '\(name)': unknown autoquality method '\(values[0])' (none, size, dssim, ml)")
        }
        func argument(_ index: Int) -> String? { index < values.count && !values[index].isEmpty ? values[index] : nil }
        if let text = argument(1) {
            let range = result.method == .size ? URLRanges.targetBytes : URLRanges.dssim
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw .init("option '\(name)': the target '\(text)' is not \(result.method == .size ? "a number of bytes from 1" : "a DSSIM from 0 to 1")")
            }
            result.target = value
        }
        for (index, what) in [(2, "minimum"), (3, "maximum")] {
            guard let text = argument(index) else { continue }
            guard let value = Int(text), StepRanges.quality.contains(value) else {
                throw .init("option '\(name)': the \(what) quality '\(text)' is not a whole number from \(StepRanges.quality.lowerBound) to \(StepRanges.quality.upperBound)")
            }
            if index == 2 { result.minQuality = value } else { result.maxQuality = value }
        }
        if let text = argument(4) {
            guard let value = Double(text), value.isFinite, URLRanges.allowedError.contains(value) else {
                throw .init("option '\(name)': the allowed error '\(text)' is not a number in \(StepRanges.text(URLRanges.allowedError))")
            }
            result.allowedError = value
        }
        return result
    }

    /// The settings these arguments make over the server's.
    public func resolved(over server: Autoquality?) -> Autoquality? {
        guard let method else { return nil }
        var settings = server?.method == method ? server! : Autoquality(method: method)
        if let target { settings.target = target }
        if let minQuality { settings.minQuality = minQuality }
        if let maxQuality { settings.maxQuality = maxQuality }
        if let allowedError { settings.allowedError = allowedError }
        return settings
    }
}
