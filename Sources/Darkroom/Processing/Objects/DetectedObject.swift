/// An object found in an image: its class, how sure the detector is, and
/// its box in the pixels of the image it was found in.
public struct DetectedObject: Sendable, Hashable, Codable {
    /// The class's index in ``classNames`` (Pro's `class_id`).
    public var classID: Int
    public var className: String
    /// From 0 to 1.
    public var confidence: Double
    public var left: Double
    public var top: Double
    public var width: Double
    public var height: Double

    public init(classID: Int, className: String, confidence: Double, left: Double, top: Double, width: Double, height: Double) {
        self.classID = classID
        self.className = className
        self.confidence = confidence
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }

    /// imgproxy Pro's names in `/info`.
    enum CodingKeys: String, CodingKey {
        case classID = "class_id", className = "class_name", confidence, left, top, width, height
    }

    /// The classes Darkroom's detector finds, by class id.
    public static let classNames = ["face"]

    var right: Double { left + width }
    var bottom: Double { top + height }
    var area: Double { width * height }

    /// The box in another image's pixels, scaled by these factors.
    func scaled(horizontal: Double, vertical: Double) -> DetectedObject {
        var object = self
        (object.left, object.width) = (left * horizontal, width * horizontal)
        (object.top, object.height) = (top * vertical, height * vertical)
        return object
    }

    /// The part of this box inside another, or nil when they do not meet.
    func intersection(left: Double, top: Double, right: Double, bottom: Double) -> Double {
        let width = min(self.right, right) - max(self.left, left)
        let height = min(self.bottom, bottom) - max(self.top, top)
        return width > 0 && height > 0 ? width * height : 0
    }
}
