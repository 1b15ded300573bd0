/// imgproxy Pro's autoquality: the quality chosen for each image, the
/// highest that fits a size, or the lowest whose structural dissimilarity
/// to the unencoded image meets a target. The image is written several
/// times (a binary search over the quality range).
public struct Autoquality: Sendable, Hashable, Codable {
    public enum Method: String, Sendable, Hashable, Codable, CaseIterable {
        /// The highest quality whose file is at most ``target`` bytes.
        case size
        /// The lowest quality whose DSSIM, (1 - SSIM) / 2, is at most
        /// ``target``; one within ``allowedError`` of it ends the search.
        case dssim
    }

    public var method: Method
    public var target: Double
    public var minQuality: Int
    public var maxQuality: Int
    public var allowedError: Double
    /// Per format, over ``minQuality`` and ``maxQuality`` (Pro's
    /// `AUTOQUALITY_FORMAT_MIN` and `_MAX`).
    public var formatMin: [ImageFormat: Int] = [:]
    public var formatMax: [ImageFormat: Int] = [:]

    /// The formats whose quality it chooses.
    static let formats: Set<ImageFormat> = [.jpeg, .webp, .avif, .heic, .jxl]

    /// Pro's defaults for a method: DSSIM 0.02 within 0.001, quality 70 to 80.
    public init(method: Method, target: Double? = nil, minQuality: Int = 70, maxQuality: Int = 80, allowedError: Double = 0.001) {
        self.method = method
        self.target = target ?? (method == .dssim ? 0.02 : 10_240)
        self.minQuality = minQuality
        self.maxQuality = maxQuality
        self.allowedError = allowedError
    }

    /// The quality range for `format`.
    func range(for format: ImageFormat) -> ClosedRange<Int> {
        let low = formatMin[format] ?? minQuality, high = formatMax[format] ?? maxQuality
        return min(low, high)...max(low, high)
    }

    /// Why these settings cannot be used, or nil.
    var problem: String? {
        let qualities = [minQuality, maxQuality] + Array(formatMin.values) + Array(formatMax.values)
        if let bad = qualities.first(where: { !(1...100).contains($0) }) { return "an autoquality quality of \(bad) is outside 1...100" }
        switch method {
        case .size where !(target.isFinite && target >= 1 && target <= 1e10):
            return "an autoquality size of \(target) bytes is outside 1...10000000000"
        case .dssim where !(target.isFinite && (0...1).contains(target)):
            return "an autoquality DSSIM of \(target) is outside 0...1"
        default:
            break
        }
        return allowedError.isFinite && (0...1).contains(allowedError) ? nil : "an autoquality allowed error of \(allowedError) is outside 0...1"
    }

    var identifier: String {
        var text = "aq-\(method.rawValue)-\(target)-\(minQuality)-\(maxQuality)-\(allowedError)"
        for (name, table) in [("min", formatMin), ("max", formatMax)] where !table.isEmpty {
            text += "-\(name)" + table.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)\($0.value)" }.joined(separator: "+")
        }
        return text
    }
}
