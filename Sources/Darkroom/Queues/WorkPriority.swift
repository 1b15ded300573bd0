/// How soon queued work should start, relative to other work in its queue.
public enum WorkPriority: Int, Sendable, Hashable, Comparable, CaseIterable, Codable {
    case veryLow, low, normal, high, veryHigh

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    /// One level up, or the same at the top.
    var raised: WorkPriority { WorkPriority(rawValue: min(rawValue + 1, Self.veryHigh.rawValue))! }
}
