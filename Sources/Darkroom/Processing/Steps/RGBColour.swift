/// An opaque colour, 0...255 per channel: backgrounds and padding.
public struct RGBColour: Sendable, Hashable, Codable {
    public var red: Int
    public var green: Int
    public var blue: Int

    /// A channel's range.
    public static let channel = 0...255

    /// Nil unless every channel is within ``channel``.
    public init?(red: Int, green: Int, blue: Int) {
        guard [red, green, blue].allSatisfy({ Self.channel.contains($0) }) else { return nil }
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// From six hex digits (`ff8000`), or three (`f80`); nil otherwise.
    public init?(hex text: String) {
        let digits = Array(text.lowercased())
        guard digits.count == 3 || digits.count == 6, digits.allSatisfy(\.isHexDigit) else { return nil }
        let pairs = digits.count == 3 ? digits.map { String([$0, $0]) }
            : stride(from: 0, to: 6, by: 2).map { String(digits[$0...$0 + 1]) }
        guard let red = Int(pairs[0], radix: 16), let green = Int(pairs[1], radix: 16), let blue = Int(pairs[2], radix: 16) else { return nil }
        self.init(red: red, green: green, blue: blue)
    }

    public static let white = RGBColour(red: 255, green: 255, blue: 255)!

    /// Six lower-case hex digits, as cache keys spell it.
    public var hex: String {
        [red, green, blue].map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Red, green and blue, 0...255, as libvips' constants take them.
    var channels: [Double] { [Double(red), Double(green), Double(blue)] }
}
