import Foundation

/// How objects are found and chosen, for the options that use them
/// (imgproxy Pro's `IMGPROXY_OBJECT_DETECTION_*`). Detection runs only
/// for a run whose options need it.
public struct ObjectDetection: Sendable, Hashable, Codable {
    /// The longer side, in pixels, of the copy the detector searches: every
    /// image is scaled to it, so a search costs the same for each. Faces of
    /// about 80 pixels and more at this size are found: at 3200, faces from
    /// about 2.1% of the photo's longer side (70 pixels in a 2560-pixel
    /// photo; docs/benchmarks.md has the recall table). At 1024 they had
    /// to be a twelfth of it: most faces in group and street photos were missed.
    public var side = 3200
    /// Objects found less surely than this (0 to 1) are left out.
    public var confidenceThreshold = 0.2
    public var gravityMode = GravityMode.maxScoreArea
    /// Where object gravity finds nothing: smart gravity, else the centre.
    public var fallbackToSmart = true

    public enum GravityMode: String, Sendable, Hashable, Codable, CaseIterable {
        /// The cut that covers the most of the objects, by their weights.
        case maxScoreArea = "max_score_area"
        /// The object with the highest score (its area, confidence and weight).
        case oneBest = "one_best"
        /// As `oneBest`, with nearness to the image's centre added to the score.
        case oneBestCentermost = "one_best_centermost"
    }

    public init() {}

    public static let sides = 80...4096

    public var isValid: Bool {
        Self.sides.contains(side) && confidenceThreshold.isFinite && (0..<1).contains(confidenceThreshold)
    }

    /// The detector's margin below which a face is left out. A margin m
    /// reads as the confidence 1 - e^-m: 0.2 is a margin of about 0.22,
    /// where the detector's own threshold is 0.
    var scoreThreshold: Double { -Foundation.log(1 - confidenceThreshold) }

    static func confidence(score: Double) -> Double { max(0, 1 - Foundation.exp(-score)) }

    var identifier: String {
        "od\(side):\(ImageOperation.format(confidenceThreshold)):\(gravityMode.rawValue)\(fallbackToSmart ? "" : ":nosm")"
    }
}

/// Where the objects sit in a cut made by object gravity (imgproxy Pro's
/// `objects_position`): placed as a gravity places an image (a side, a
/// corner, the centre, with offsets, or `fp`), or `proportional`: as far
/// across the cut as they are across the image.
public struct ObjectsPosition: Sendable, Hashable, Codable {
    public var gravity: Gravity
    public var proportional: Bool

    public init(_ gravity: Gravity = .centre, proportional: Bool = false) {
        self.gravity = gravity
        self.proportional = proportional
    }

    public static let centre = ObjectsPosition()

    var identifier: String { proportional ? "op-prop" : "op-\(gravity.key)" }
}
