/// Where a crop keeps the image when it must cut some of it away.
public enum Gravity: String, Sendable, Hashable, Codable, CaseIterable {
    case centre, north, south, east, west
    /// The most interesting region, by libvips' attention measure.
    case smart
}
