/// Where a crop keeps the image when it must cut some of it away.
public enum Gravity: String, Sendable, Hashable, Codable, CaseIterable {
    case centre, north, south, east, west
    case northEast = "north-east", northWest = "north-west", southEast = "south-east", southWest = "south-west"
    /// The most interesting region, by libvips' attention measure.
    case smart
}

extension Gravity {
    /// Where a crop starts, given how much the image is larger than it on
    /// each side. Smart gravity is placed by libvips; centre stands in here.
    func placement(spareX: Int, spareY: Int) -> (left: Int, top: Int) {
        switch self {
        case .north: (spareX / 2, 0)
        case .south: (spareX / 2, spareY)
        case .east: (spareX, spareY / 2)
        case .west: (0, spareY / 2)
        case .northEast: (spareX, 0)
        case .northWest: (0, 0)
        case .southEast: (spareX, spareY)
        case .southWest: (0, spareY)
        case .centre, .smart: (spareX / 2, spareY / 2)
        }
    }
}
