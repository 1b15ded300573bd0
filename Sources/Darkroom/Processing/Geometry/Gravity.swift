/// Where a cut keeps the image when it must cut some of it away, and where
/// an image sits on a larger canvas: a side, a corner or the centre, moved
/// by an offset; the most interesting region; a focus point; or the
/// detected objects.
public struct Gravity: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case centre, north, south, east, west
        case northEast = "north-east", northWest = "north-west", southEast = "south-east", southWest = "south-west"
        /// The most interesting region, by libvips' attention measure.
        case smart
        /// A point given as fractions of the width and height (imgproxy's `fp`).
        case focusPoint = "focus-point"
        /// The detected objects of ``Gravity/objectClasses`` (imgproxy
        /// Pro's `obj` and `objw`), placed as ``ObjectsPosition`` says.
        case objects
    }

    public var kind: Kind
    /// For a side, a corner or the centre: pixels the placement moves away
    /// from the edge it keeps (right and down from the centre), as
    /// imgproxy's gravity offsets. For a focus point: where it is, from 0
    /// (left) to 1 (right).
    public var x: Double
    /// As `x`, downwards.
    public var y: Double
    /// For object gravity: which objects count, and by how much.
    public var objectClasses = ObjectClasses.all

    public init(_ kind: Kind, x: Double = 0, y: Double = 0) {
        self.kind = kind
        self.x = x
        self.y = y
    }

    /// The cut kept around the detected objects of `classes`.
    public static func objects(_ classes: ObjectClasses = .all) -> Gravity {
        var gravity = Gravity(.objects)
        gravity.objectClasses = classes
        return gravity
    }

    /// Whether the placement depends on the pixels (smart and object
    /// gravity), not on the sizes alone.
    public var readsPixels: Bool { kind == .smart || kind == .objects }

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
        if kind == .objects { return objectClasses.entries.isEmpty ? kind.rawValue : "\(kind.rawValue):\(objectClasses.identifier)" }
        return kind != .focusPoint && x == 0 && y == 0 ? kind.rawValue : "\(kind.rawValue):\(ImageOperation.format(x)):\(ImageOperation.format(y))"
    }

    /// Whether the numbers can be used: finite, a focus point inside the
    /// image, offsets within the largest image there is.
    public var isValid: Bool {
        guard x.isFinite, y.isFinite else { return false }
        if kind == .objects { return objectClasses.isValid && x == 0 && y == 0 }
        return kind == .focusPoint ? StepRanges.fraction.contains(x) && StepRanges.fraction.contains(y) : StepRanges.offset.contains(x) && StepRanges.offset.contains(y)
    }
}

extension Gravity: Codable {
    /// Encoded as its ``key``, so a gravity without offset is the string it
    /// always was.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        if text == Kind.objects.rawValue || text.hasPrefix(Kind.objects.rawValue + ":") {
            guard let classes = ObjectClasses(identifier: text.dropFirst(Kind.objects.rawValue.count)) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an object gravity"))
            }
            self = .objects(classes)
            return
        }
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
    /// Where an `inner` rectangle starts inside an `outer` one, by
    /// imgproxy's arithmetic: at the edge or centre the kind names (the
    /// centre rounds half of the spare pixels plus one to even), moved by
    /// the offsets, or centred on the focus point. An offset of 1 or more
    /// is in pixels, multiplied by `offsetScale` (the device pixel ratio
    /// the resize settled on); a smaller one is a fraction of the outer
    /// side. Kept inside; with `allowOverflow` (a watermark), it may hang
    /// over every edge but one pixel. Smart gravity is placed by libvips and
    /// object gravity by ``ObjectFocus``; centre stands in here.
    func placement(outer: (width: Int, height: Int), inner: (width: Int, height: Int),
                   offsetScale: Double = 1, allowOverflow: Bool = false) -> (left: Int, top: Int) {
        var left: Int, top: Int
        if kind == .focusPoint {
            left = Self.scaleToEven(outer.width, x) - inner.width / 2
            top = Self.scaleToEven(outer.height, y) - inner.height / 2
        } else {
            let dx = abs(x) >= 1 ? Self.roundToEven(x * offsetScale) : Self.scaleToEven(outer.width, x)
            let dy = abs(y) >= 1 ? Self.roundToEven(y * offsetScale) : Self.scaleToEven(outer.height, y)
            left = Self.halfToEven(outer.width - inner.width + 1) + dx
            top = Self.halfToEven(outer.height - inner.height + 1) + dy
            switch kind {
            case .north, .northEast, .northWest: top = dy
            case .south, .southEast, .southWest: top = outer.height - inner.height - dy
            default: break
            }
            switch kind {
            case .east, .northEast, .southEast: left = outer.width - inner.width - dx
            case .west, .northWest, .southWest: left = dx
            default: break
            }
        }
        let (minX, maxX, minY, maxY) = allowOverflow
            ? (-inner.width + 1, outer.width - 1, -inner.height + 1, outer.height - 1)
            : (0, outer.width - inner.width, 0, outer.height - inner.height)
        return (max(minX, min(left, maxX)), max(minY, min(top, maxY)))
    }

    static func roundToEven(_ value: Double) -> Int {
        Int(value.rounded(.toNearestOrEven))
    }

    /// `side` times `fraction`, rounded half to even; 0 for a side of 0.
    static func scaleToEven(_ side: Int, _ fraction: Double) -> Int {
        side == 0 ? 0 : roundToEven(Double(side) * fraction)
    }

    /// Half of `value`, rounded half to even; 0 for 0.
    static func halfToEven(_ value: Int) -> Int {
        value == 0 ? 0 : roundToEven(Double(value) / 2)
    }
}
