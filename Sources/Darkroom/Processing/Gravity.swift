/// Where a cut keeps the image when it must cut some of it away, and where
/// an image sits on a larger canvas: a side, a corner or the centre, moved
/// by an offset; the most interesting region; or a focus point.
public struct Gravity: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case centre, north, south, east, west
        case northEast = "north-east", northWest = "north-west", southEast = "south-east", southWest = "south-west"
        /// The most interesting region, by libvips' attention measure.
        case smart
        /// A point given as fractions of the width and height (imgproxy's `fp`).
        case focusPoint = "focus-point"
    }

    public var kind: Kind
    /// For a side, a corner or the centre: pixels the placement moves away
    /// from the edge it keeps (right and down from the centre), as
    /// imgproxy's gravity offsets. For a focus point: where it is, from 0
    /// (left) to 1 (right).
    public var x: Double
    /// As `x`, downwards.
    public var y: Double

    public init(_ kind: Kind, x: Double = 0, y: Double = 0) {
        self.kind = kind
        self.x = x
        self.y = y
    }

    public static let centre = Gravity(.centre)
    public static let north = Gravity(.north)
    public static let south = Gravity(.south)
    public static let east = Gravity(.east)
    public static let west = Gravity(.west)
    public static let northEast = Gravity(.northEast)
    public static let northWest = Gravity(.northWest)
    public static let southEast = Gravity(.southEast)
    public static let southWest = Gravity(.southWest)
    public static let smart = Gravity(.smart)

    /// The cut centred on a point, given as fractions (0...1) of the width
    /// and height.
    public static func focusPoint(x: Double, y: Double) -> Gravity {
        Gravity(.focusPoint, x: x, y: y)
    }

    /// Stable text for cache keys: the kind alone when there is no offset,
    /// so keys made before offsets existed stay the same.
    public var key: String {
        kind != .focusPoint && x == 0 && y == 0 ? kind.rawValue : "\(kind.rawValue):\(ImageOperation.format(x)):\(ImageOperation.format(y))"
    }

    /// Whether the numbers can be used: finite, a focus point inside the
    /// image, offsets within the largest image there is.
    public var isValid: Bool {
        guard x.isFinite, y.isFinite else { return false }
        return kind == .focusPoint ? (0...1).contains(x) && (0...1).contains(y) : abs(x) <= 1_000_000 && abs(y) <= 1_000_000
    }
}

extension Gravity: Codable {
    /// Encoded as its ``key``, so a gravity without offset is the string it
    /// always was.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let kind = Kind(rawValue: String(parts[0])), parts.count == 1 || parts.count == 3,
              let x = parts.count == 3 ? Double(parts[1]) : 0, let y = parts.count == 3 ? Double(parts[2]) : 0,
              Gravity(kind, x: x, y: y).isValid
        else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not a gravity"))
        }
        self.init(kind, x: x, y: y)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(key)
    }
}

extension Gravity {
    /// Where an `inner` rectangle starts inside an `outer` one: at the edge
    /// or centre the kind names, moved by the offsets, or centred on the
    /// focus point; kept inside. Smart gravity is placed by libvips; centre
    /// stands in here.
    func placement(outer: (width: Int, height: Int), inner: (width: Int, height: Int)) -> (left: Int, top: Int) {
        let spareX = outer.width - inner.width, spareY = outer.height - inner.height
        var left: Int, top: Int
        if kind == .focusPoint {
            left = Int((Double(outer.width) * x).rounded()) - inner.width / 2
            top = Int((Double(outer.height) * y).rounded()) - inner.height / 2
        } else {
            let dx = Int(x.rounded()), dy = Int(y.rounded())
            switch kind {
            case .north: (left, top) = (spareX / 2 + dx, dy)
            case .south: (left, top) = (spareX / 2 + dx, spareY - dy)
            case .east: (left, top) = (spareX - dx, spareY / 2 + dy)
            case .west: (left, top) = (dx, spareY / 2 + dy)
            case .northEast: (left, top) = (spareX - dx, dy)
            case .northWest: (left, top) = (dx, dy)
            case .southEast: (left, top) = (spareX - dx, spareY - dy)
            case .southWest: (left, top) = (dx, spareY - dy)
            case .centre, .smart, .focusPoint: (left, top) = (spareX / 2 + dx, spareY / 2 + dy)
            }
        }
        return (min(max(left, 0), max(spareX, 0)), min(max(top, 0), max(spareY, 0)))
    }
}
