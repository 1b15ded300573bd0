import Foundation

/// BlurHash (blurha.sh): a photo as a few cosine components in about 30
/// characters, which a client draws as a blurred placeholder before the
/// image arrives.
enum BlurHash {
    private static let characters = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~")

    /// The hash of 8-bit RGB or RGBA pixels (alpha ignored), with
    /// `componentsX` x `componentsY` components, each from 1 to 9.
    static func encode(width: Int, height: Int, bands: Int, pixels: [UInt8], componentsX: Int = 4, componentsY: Int = 3) -> String {
        precondition((1...9).contains(componentsX) && (1...9).contains(componentsY) && width > 0 && height > 0 && bands >= 3)
        // Linear light, once per pixel.
        let linear = pixels.enumerated().map { index, value in index % bands < 3 ? sRGBToLinear(value) : 0 }
        var factors: [(Double, Double, Double)] = []
        for j in 0..<componentsY {
            for i in 0..<componentsX {
                let normalisation = i == 0 && j == 0 ? 1.0 : 2.0
                var r = 0.0, g = 0.0, b = 0.0
                let cosX = (0..<width).map { cos(Double.pi * Double(i) * Double($0) / Double(width)) }
                for y in 0..<height {
                    let cosY = cos(Double.pi * Double(j) * Double(y) / Double(height))
                    for x in 0..<width {
                        let basis = normalisation * cosX[x] * cosY
                        let p = (y * width + x) * bands
                        r += basis * linear[p]
                        g += basis * linear[p + 1]
                        b += basis * linear[p + 2]
                    }
                }
                let scale = 1.0 / Double(width * height)
                factors.append((r * scale, g * scale, b * scale))
            }
        }

        var hash = encode83((componentsX - 1) + (componentsY - 1) * 9, length: 1)
        let ac = factors.dropFirst()
        let maximum: Double
        if ac.isEmpty {
            maximum = 1
            hash += encode83(0, length: 1)
        } else {
            let actual = ac.map { max(abs($0.0), abs($0.1), abs($0.2)) }.max() ?? 0
            let quantised = max(0, min(82, Int((actual * 166 - 0.5).rounded(.down))))
            maximum = Double(quantised + 1) / 166
            hash += encode83(quantised, length: 1)
        }
        let dc = factors[0]
        hash += encode83((linearToSRGB(dc.0) << 16) + (linearToSRGB(dc.1) << 8) + linearToSRGB(dc.2), length: 4)
        for factor in ac {
            func quantise(_ value: Double) -> Int {
                max(0, min(18, Int((signedPow(value / maximum, 0.5) * 9 + 9.5).rounded(.down))))
            }
            hash += encode83(quantise(factor.0) * 19 * 19 + quantise(factor.1) * 19 + quantise(factor.2), length: 2)
        }
        return hash
    }

    private static func encode83(_ value: Int, length: Int) -> String {
        var text = ""
        for i in 1...length {
            var divisor = 1
            for _ in 0..<(length - i) { divisor *= 83 }
            text.append(characters[(value / divisor) % 83])
        }
        return text
    }

    private static func sRGBToLinear(_ value: UInt8) -> Double {
        let v = Double(value) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    private static func linearToSRGB(_ value: Double) -> Int {
        let v = max(0, min(1, value))
        return v <= 0.003_130_8 ? Int(v * 12.92 * 255 + 0.5) : Int((1.055 * pow(v, 1 / 2.4) - 0.055) * 255 + 0.5)
    }

    private static func signedPow(_ value: Double, _ exponent: Double) -> Double {
        value < 0 ? -pow(-value, exponent) : pow(value, exponent)
    }
}
