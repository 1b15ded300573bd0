/// The six swatches Android's Palette and Vibrant.js find (imgproxy Pro's
/// `dominant_colors`): vibrant and muted, each light, plain and dark. The
/// image is cut into up to 64 colours (``Palette``); each target takes the
/// unused colour whose saturation and lightness are nearest its own,
/// weighed with how much of the image the colour covers.
enum DominantColours {
    struct Target {
        let name: String
        let lightness: (minimum: Double, target: Double, maximum: Double)
        let saturation: (minimum: Double, target: Double, maximum: Double)
    }

    /// Palette's targets, in the order it fills them.
    static let targets: [Target] = [
        Target(name: "light_vibrant", lightness: (0.55, 0.74, 1), saturation: (0.35, 1, 1)),
        Target(name: "vibrant", lightness: (0.3, 0.5, 0.7), saturation: (0.35, 1, 1)),
        Target(name: "dark_vibrant", lightness: (0, 0.26, 0.45), saturation: (0.35, 1, 1)),
        Target(name: "light_muted", lightness: (0.55, 0.74, 1), saturation: (0, 0.3, 0.4)),
        Target(name: "muted", lightness: (0.3, 0.5, 0.7), saturation: (0, 0.3, 0.4)),
        Target(name: "dark_muted", lightness: (0, 0.26, 0.45), saturation: (0, 0.3, 0.4)),
    ]

    /// The swatches `rgba` (8-bit RGBA) has, by name. With `buildMissed`,
    /// a missing one is made from the first found swatch of its own kind
    /// (vibrant or muted), else of the other, at the target's lightness
    /// and, across kinds, its saturation.
    static func swatches(_ rgba: [UInt8], buildMissed: Bool) -> [String: PaletteColour] {
        let colours = Palette.colours(rgba, count: 64).filter { $0.alpha >= 128 }
        let most = Double(colours.map(\.population).max() ?? 1)
        var used = Set<Int>()
        var found: [String: PaletteColour] = [:]
        for target in targets {
            var best: (index: Int, score: Double)?
            for (index, colour) in colours.enumerated() where !used.contains(index) {
                let (_, s, l) = hsl(colour)
                guard (target.saturation.minimum...target.saturation.maximum).contains(s),
                      (target.lightness.minimum...target.lightness.maximum).contains(l) else { continue }
                let score = 0.24 * (1 - abs(s - target.saturation.target))
                    + 0.52 * (1 - abs(l - target.lightness.target))
                    + 0.24 * Double(colour.population) / most
                if best == nil || score > best!.score { best = (index, score) }
            }
            if let best {
                used.insert(best.index)
                var colour = colours[best.index]
                colour.alpha = 255
                found[target.name] = colour
            }
        }
        guard buildMissed, !found.isEmpty else { return found }
        for target in targets where found[target.name] == nil {
            let vibrant = target.saturation.target == 1
            let ownKind = targets.filter { ($0.saturation.target == 1) == vibrant }.compactMap { found[$0.name] }
            let otherKind = targets.filter { ($0.saturation.target == 1) != vibrant }.compactMap { found[$0.name] }
            if let source = ownKind.first {
                let (h, s, _) = hsl(source)
                found[target.name] = colour(hue: h, saturation: s, lightness: target.lightness.target)
            } else if let source = otherKind.first {
                let (h, _, _) = hsl(source)
                found[target.name] = colour(hue: h, saturation: target.saturation.target == 1 ? 0.75 : target.saturation.target,
                                            lightness: target.lightness.target)
            }
        }
        return found
    }

    /// Hue (0 up to 1), saturation and lightness (0 to 1), as Palette
    /// computes them.
    static func hsl(_ colour: PaletteColour) -> (Double, Double, Double) {
        let (r, g, b) = (Double(colour.red) / 255, Double(colour.green) / 255, Double(colour.blue) / 255)
        let high = max(r, g, b), low = min(r, g, b), delta = high - low
        let l = (high + low) / 2
        guard delta > 0 else { return (0, 0, l) }
        let s = delta / (1 - abs(2 * l - 1))
        var h: Double = if high == r {
            ((g - b) / delta).truncatingRemainder(dividingBy: 6)
        } else if high == g {
            (b - r) / delta + 2
        } else {
            (r - g) / delta + 4
        }
        h /= 6
        if h < 0 { h += 1 }
        return (h, min(1, s), l)
    }

    static func colour(hue: Double, saturation: Double, lightness: Double) -> PaletteColour {
        let c = (1 - abs(2 * lightness - 1)) * saturation
        let h = hue * 6
        let x = c * (1 - abs(h.truncatingRemainder(dividingBy: 2) - 1))
        let m = lightness - c / 2
        let (r, g, b): (Double, Double, Double) = switch Int(h) % 6 {
        case 0: (c, x, 0)
        case 1: (x, c, 0)
        case 2: (0, c, x)
        case 3: (0, x, c)
        case 4: (x, 0, c)
        default: (c, 0, x)
        }
        func byte(_ v: Double) -> Int { max(0, min(255, Int(((v + m) * 255).rounded()))) }
        return PaletteColour(red: byte(r), green: byte(g), blue: byte(b))
    }
}
