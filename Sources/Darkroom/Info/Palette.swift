/// A colour of an image's summary, with how many of the analysed pixels
/// it stands for.
public struct PaletteColour: Sendable, Hashable, Codable {
    public var red: Int
    public var green: Int
    public var blue: Int
    public var alpha: Int
    /// Pixels of the analysed thumbnail this colour stands for.
    var population: Int = 0

    public init(red: Int, green: Int, blue: Int, alpha: Int = 255) {
        self.init(red: red, green: green, blue: blue, alpha: alpha, population: 0)
    }

    init(red: Int, green: Int, blue: Int, alpha: Int, population: Int) {
        (self.red, self.green, self.blue, self.alpha, self.population) = (red, green, blue, alpha, population)
    }

    /// imgproxy Pro's shape: `{"R": 189, "G": 178, "B": 169, "A": 255}`;
    /// its dominant colours have no `A`.
    enum CodingKeys: String, CodingKey {
        case red = "R", green = "G", blue = "B", alpha = "A"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(red: try container.decode(Int.self, forKey: .red), green: try container.decode(Int.self, forKey: .green),
                  blue: try container.decode(Int.self, forKey: .blue), alpha: try container.decodeIfPresent(Int.self, forKey: .alpha) ?? 255)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(red, forKey: .red)
        try container.encode(green, forKey: .green)
        try container.encode(blue, forKey: .blue)
        if !encoder.codingPath.contains(where: { $0.stringValue == ImageInfo.CodingKeys.dominantColours.stringValue }) {
            try container.encode(alpha, forKey: .alpha)
        }
    }
}

/// Median cut: the pixels in one box, split at the median of the channel
/// that spans the widest range, again and again, the most populous box
/// first, until there are as many boxes as colours asked for or none can
/// be split; each box's mean is a colour. Deterministic, and cheap on the
/// 100-pixel thumbnail it runs on.
enum Palette {
    /// At most `count` colours of `rgba` (8-bit RGBA pixels), the most
    /// populous first. Fully transparent pixels are left out unless all are.
    static func colours(_ rgba: [UInt8], count: Int) -> [PaletteColour] {
        var pixels: [UInt32] = []
        pixels.reserveCapacity(rgba.count / 4)
        for p in stride(from: 0, to: rgba.count - 3, by: 4) where rgba[p + 3] > 0 {
            pixels.append(UInt32(rgba[p]) << 24 | UInt32(rgba[p + 1]) << 16 | UInt32(rgba[p + 2]) << 8 | UInt32(rgba[p + 3]))
        }
        if pixels.isEmpty {
            for p in stride(from: 0, to: rgba.count - 3, by: 4) {
                pixels.append(UInt32(rgba[p]) << 24 | UInt32(rgba[p + 1]) << 16 | UInt32(rgba[p + 2]) << 8 | UInt32(rgba[p + 3]))
            }
        }
        guard !pixels.isEmpty, count > 0 else { return [] }
        var boxes = [pixels[...]]
        while boxes.count < count {
            // The most populous box that has more than one colour in it.
            var best: (index: Int, channel: Int)?
            for (index, box) in boxes.enumerated() where best == nil || box.count > boxes[best!.index].count {
                if let channel = widestChannel(box) { best = (index, channel) }
            }
            guard let (index, channel) = best else { break }
            let shift = UInt32(24 - 8 * channel)
            let sorted = boxes[index].sorted { ($0 >> shift) & 0xFF < ($1 >> shift) & 0xFF }
            // Split at the median, moved off a run of equal values so both
            // halves are non-empty and differ.
            var cut = sorted.count / 2
            let value = { (i: Int) in (sorted[i] >> shift) & 0xFF }
            while cut > 0, value(cut - 1) == value(cut) { cut -= 1 }
            if cut == 0 {
                cut = sorted.count / 2
                while cut < sorted.count, value(cut - 1) == value(cut) { cut += 1 }
            }
            let array = Array(sorted)
            boxes[index] = array[..<cut]
            boxes.append(array[cut...])
        }
        return boxes.map(mean).sorted { $0.population > $1.population }
    }

    /// The channel (0 red ... 3 alpha) whose values in `box` span the
    /// widest range; nil when every pixel is the same.
    private static func widestChannel(_ box: ArraySlice<UInt32>) -> Int? {
        var low = [UInt32](repeating: 255, count: 4), high = [UInt32](repeating: 0, count: 4)
        for pixel in box {
            for channel in 0..<4 {
                let value = (pixel >> UInt32(24 - 8 * channel)) & 0xFF
                low[channel] = min(low[channel], value)
                high[channel] = max(high[channel], value)
            }
        }
        let spans = (0..<4).map { high[$0] - min(low[$0], high[$0]) }
        guard let widest = spans.indices.max(by: { spans[$0] < spans[$1] }), spans[widest] > 0 else { return nil }
        return widest
    }

    private static func mean(_ box: ArraySlice<UInt32>) -> PaletteColour {
        var sums = [Int](repeating: 0, count: 4)
        for pixel in box {
            for channel in 0..<4 { sums[channel] += Int((pixel >> UInt32(24 - 8 * channel)) & 0xFF) }
        }
        let n = box.count
        func rounded(_ sum: Int) -> Int { (sum + n / 2) / n }
        return PaletteColour(red: rounded(sums[0]), green: rounded(sums[1]), blue: rounded(sums[2]), alpha: rounded(sums[3]), population: n)
    }

    /// The mean colour; with `ignoringTransparent`, of the pixels that are
    /// not fully transparent (all of them when every one is).
    static func average(_ rgba: [UInt8], ignoringTransparent: Bool) -> PaletteColour {
        var sums = [Int](repeating: 0, count: 4), n = 0
        for pass in 0..<2 where n == 0 {
            for p in stride(from: 0, to: rgba.count - 3, by: 4) where pass == 1 || !ignoringTransparent || rgba[p + 3] > 0 {
                for channel in 0..<4 { sums[channel] += Int(rgba[p + channel]) }
                n += 1
            }
        }
        guard n > 0 else { return PaletteColour(red: 0, green: 0, blue: 0, alpha: 0) }
        func rounded(_ sum: Int) -> Int { (sum + n / 2) / n }
        return PaletteColour(red: rounded(sums[0]), green: rounded(sums[1]), blue: rounded(sums[2]), alpha: rounded(sums[3]), population: n)
    }
}
