import Foundation

/// The structural similarity of two grey images (Wang, Bovik, Sheikh and
/// Simoncelli, 2004), as scikit-image computes it with Gaussian weights:
/// an 11-tap Gaussian window of sigma 1.5, K1 0.01 and K2 0.03 over 8-bit
/// samples, population statistics, and the mean of the map over the
/// pixels at least 5 from every edge. Computed in bands of rows, so its
/// memory is a few rows of floats whatever the image's size.
enum SSIM {
    static let radius = 5
    static let sigma = 1.5
    static let bandRows = 128

    /// The Gaussian's weights, summing to 1.
    static let weights: [Float] = {
        let raw = (-radius...radius).map { exp(-0.5 * Double($0 * $0) / (sigma * sigma)) }
        let sum = raw.reduce(0, +)
        return raw.map { Float($0 / sum) }
    }()

    /// Mean SSIM of `a` and `b`, `width` x `height` luma samples each; 1
    /// when they are the same. Nil for images with no pixel 5 from every
    /// edge (smaller than 11 x 11).
    static func mean(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double? {
        precondition(a.count == width * height && b.count == width * height)
        guard width > 2 * radius, height > 2 * radius else { return nil }
        let c1 = Float((0.01 * 255) * (0.01 * 255)), c2 = Float((0.03 * 255) * (0.03 * 255))
        var total = 0.0
        var y0 = radius
        let last = height - radius
        while y0 < last {
            let y1 = min(last, y0 + bandRows)
            // Rows y0 - 5 ..< y1 + 5, filtered across, then down.
            let top = y0 - radius, rows = y1 - y0 + 2 * radius
            var across = [[Float]](repeating: [Float](repeating: 0, count: rows * width), count: 5)
            for row in 0..<rows {
                let base = (top + row) * width
                for x in radius..<(width - radius) {
                    var sa: Float = 0, sb: Float = 0, saa: Float = 0, sbb: Float = 0, sab: Float = 0
                    for k in 0...(2 * radius) {
                        let w = weights[k]
                        let va = Float(a[base + x - radius + k]), vb = Float(b[base + x - radius + k])
                        sa += w * va
                        sb += w * vb
                        saa += w * va * va
                        sbb += w * vb * vb
                        sab += w * va * vb
                    }
                    let at = row * width + x
                    across[0][at] = sa
                    across[1][at] = sb
                    across[2][at] = saa
                    across[3][at] = sbb
                    across[4][at] = sab
                }
            }
            for y in y0..<y1 {
                let centre = y - top
                for x in radius..<(width - radius) {
                    var ma: Float = 0, mb: Float = 0, maa: Float = 0, mbb: Float = 0, mab: Float = 0
                    for k in 0...(2 * radius) {
                        let w = weights[k], at = (centre - radius + k) * width + x
                        ma += w * across[0][at]
                        mb += w * across[1][at]
                        maa += w * across[2][at]
                        mbb += w * across[3][at]
                        mab += w * across[4][at]
                    }
                    let va = maa - ma * ma, vb = mbb - mb * mb, cov = mab - ma * mb
                    let numerator = (2 * ma * mb + c1) * (2 * cov + c2)
                    let denominator = (ma * ma + mb * mb + c1) * (va + vb + c2)
                    total += Double(numerator / denominator)
                }
            }
            y0 = y1
        }
        return total / Double((width - 2 * radius) * (height - 2 * radius))
    }

    /// Structural dissimilarity, (1 - SSIM) / 2: 0 for the same image.
    static func dissimilarity(_ a: [UInt8], _ b: [UInt8], width: Int, height: Int) -> Double? {
        mean(a, b, width: width, height: height).map { (1 - $0) / 2 }
    }
}
