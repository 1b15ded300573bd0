import Foundation

/// The URL surface the property test draws from: every option family
/// with values anywhere in their ranges (and a little past them), every
/// output format, and the sources that cost the most.
struct SurfaceProperty {
    /// A small, seeded generator (SplitMix64): a failing case is named by
    /// its seed and number and made again from them.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        mutating func int(_ range: ClosedRange<Int>) -> Int {
            range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
        }

        mutating func number(_ range: ClosedRange<Double>) -> String {
            let value = range.lowerBound + (range.upperBound - range.lowerBound) * Double(next() % 10_001) / 10_000
            return String(format: "%.2f", value)
        }

        mutating func pick<T>(_ values: [T]) -> T {
            values[int(0...values.count - 1)]
        }

        mutating func chance(_ percent: Int) -> Bool {
            int(1...100) <= percent
        }
    }

    let resultLimit: Int

    static let gravities = ["no", "so", "ea", "we", "noea", "nowe", "soea", "sowe", "ce", "sm", "fp:0.2:0.8", "obj:face"]
    static let formats = ["jpg", "png", "webp", "avif", "gif", "tiff", "heic", "bmp", "ico", "best"]

    /// One value of each family, as the URL writes it.
    func families(_ g: inout Generator) -> [String] {
        let side = { (g: inout Generator) in g.chance(20) ? resultLimit : g.int(0...resultLimit) }
        return [
            "rs:\(g.pick(["fit", "fill", "fill-down", "force", "auto"])):\(side(&g)):\(side(&g)):\(g.int(0...1)):\(g.int(0...1))",
            "c:\(side(&g)):\(side(&g)):\(g.pick(Self.gravities))",
            "g:\(g.pick(Self.gravities))",
            "bl:\(g.number(0.1...100))",
            "sh:\(g.number(0.1...10))",
            "pix:\(g.int(1...1000))",
            "rot:\(g.pick([90, 180, 270]))",
            "fl:\(g.int(0...1)):\(g.int(0...1))",
            "pd:\(g.int(0...resultLimit / 4)):\(g.int(0...resultLimit / 4))",
            "ex:1:\(g.pick(Self.gravities.filter { $0 != "sm" && $0 != "obj:face" }))",
            "t:\(g.int(0...100))",
            "dpr:\(g.int(1...8))",
            "z:\(g.number(0.01...8))",
            "bg:\(String(format: "%06x", g.int(0...0xFFFFFF)))",
            "wm:\(g.number(0.1...1)):\(g.pick(["ce", "re", "ch", "nowe", "soea"]))/wms:\(side(&g)):\(side(&g))",
            "wm:1:re/wmsh:\(g.number(0...100))/wmr:\(g.int(-360...360))",
            "wmt:\(Data("Darkroom \(g.int(0...9999))".utf8).base64EncodedString().replacingOccurrences(of: "=", with: ""))",
            "q:\(g.int(1...100))",
            "mb:\(g.int(100...200_000))",
            "br:\(g.int(-255...255))/co:\(g.number(0...3))/sa:\(g.number(0...3))",
            "mc:\(g.number(0...1))",
            "dt:\(g.number(0...1)):102030:f0e0d0",
            "col:\(g.number(0...1)):ff8000",
            "gr:\(g.number(0...1)):000000:\(g.int(0...359))",
            "ush:always:\(g.number(0...10)):\(g.number(1...10))",
            "ba:\(g.number(0.1...100)):0.1:0.1:0.5:0.5",
            "sepia:\(g.number(0...1))",
            "grayscale:1",
            "pg:\(g.int(0...3))/da:\(g.int(0...1))",
            "sm:\(g.int(0...1))/scp:\(g.int(0...1))",
            "aq:size:\(g.int(1000...50_000))",
            "mrd:\(g.int(0...resultLimit))",
            "c:\(side(&g)):\(side(&g))/car:\(g.number(0.01...100)):\(g.int(0...1))",
            "ra:\(g.pick(["nearest", "linear", "cubic", "lanczos2", "lanczos3"]))",
            "pbl:\(g.number(0.1...100)):\(g.pick(["down", "up", "left", "right", "\(g.int(-360...360))"]))",
            "ct:t\(g.int(0...99)):u\(g.int(0...99))",
            "cp:\(g.pick(["srgb", "cmyk"]))",
            "dpi:\(g.int(0...100_000))",
            "st:\(Data("rect { fill: #\(String(format: "%06x", g.int(0...0xFFFFFF))) } * { filter: blur(\(g.int(0...100))px) }".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "").replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_"))",
            "bd:\(g.number(0.1...50))/g:obj:face",
            "vtt:\(g.pick(["-1", "0.5", "1", "0"])):\(g.int(0...12)):\(g.int(0...12)):\(side(&g)):\(side(&g)):\(g.int(0...1)):\(g.int(0...1)):\(g.int(0...1)):\(g.number(0...1)):\(g.number(0...1))",
            "vta:\(g.pick(["-1", "0.3", "1"])):\(g.int(0...1000)):\(g.int(0...40)):\(side(&g)):\(side(&g)):\(g.int(0...1)):\(g.int(0...1)):\(g.int(0...1))",
        ]
    }

    /// Client hints, as a browser sends them (the `Sec-CH-` forms or the
    /// old ones): a width anywhere up to the result limit, a pixel ratio
    /// up to 8 (and a little past: refused or ignored, never a fault).
    func clientHints(_ g: inout Generator) -> [(String, String)] {
        let prefix = g.chance(50) ? "Sec-CH-" : ""
        var hints = [("\(prefix)Width", "\(g.chance(20) ? resultLimit : g.int(0...resultLimit))")]
        if g.chance(70) { hints.append(("\(prefix)DPR", g.number(0.5...9))) }
        return hints
    }

    /// A URL's options: up to four families, then a format.
    func options(_ g: inout Generator) -> String {
        var parts: [String] = []
        for _ in 0..<g.int(1...4) {
            var families = families(&g)
            parts.append(families.remove(at: g.int(0...families.count - 1)))
        }
        let format = g.pick(Self.formats)
        parts.append(format == "best" ? "f:best" : "f:\(format)")
        return parts.joined(separator: "/")
    }
}
