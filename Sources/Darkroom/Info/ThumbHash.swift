import Foundation

/// ThumbHash (evanw.github.io/thumbhash): a placeholder like BlurHash that
/// also keeps the aspect ratio and transparency, in about 25 bytes.
enum ThumbHash {
    /// The hash of 8-bit RGBA pixels, at most 100 x 100 (larger images
    /// gain nothing and cost time: make a thumbnail first).
    static func encode(width w: Int, height h: Int, rgba: [UInt8]) -> [UInt8] {
        precondition(w > 0 && h > 0 && w <= 100 && h <= 100 && rgba.count == w * h * 4)
        // JavaScript's Math.round, which the reference uses.
        func round(_ x: Double) -> Int { Int((x + 0.5).rounded(.down)) }

        // The average colour, weighted by alpha.
        var avgR = 0.0, avgG = 0.0, avgB = 0.0, avgA = 0.0
        for i in 0..<(w * h) {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            avgR += alpha / 255 * Double(rgba[i * 4])
            avgG += alpha / 255 * Double(rgba[i * 4 + 1])
            avgB += alpha / 255 * Double(rgba[i * 4 + 2])
            avgA += alpha
        }
        if avgA > 0 {
            avgR /= avgA
            avgG /= avgA
            avgB /= avgA
        }

        let hasAlpha = avgA < Double(w * h)
        let lLimit = hasAlpha ? 5.0 : 7.0   // fewer luminance bits when alpha needs some
        let lx = max(1, round(lLimit * Double(w) / Double(max(w, h))))
        let ly = max(1, round(lLimit * Double(h) / Double(max(w, h))))
        // Luminance, yellow-blue, red-green and alpha, composited over the average.
        var l = [Double](repeating: 0, count: w * h), p = l, q = l, a = l
        for i in 0..<(w * h) {
            let alpha = Double(rgba[i * 4 + 3]) / 255
            let r = avgR * (1 - alpha) + alpha / 255 * Double(rgba[i * 4])
            let g = avgG * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 1])
            let b = avgB * (1 - alpha) + alpha / 255 * Double(rgba[i * 4 + 2])
            l[i] = (r + g + b) / 3
            p[i] = (r + g) / 2 - b
            q[i] = r - g
            a[i] = alpha
        }

        // A DCT into the constant term and the varying ones, scaled to 0...1.
        func encodeChannel(_ channel: [Double], _ nx: Int, _ ny: Int) -> (dc: Double, ac: [Double], scale: Double) {
            var dc = 0.0, ac: [Double] = [], scale = 0.0
            for cy in 0..<ny {
                var cx = 0
                while cx * ny < nx * (ny - cy) {
                    let fx = (0..<w).map { cos(Double.pi / Double(w) * Double(cx) * (Double($0) + 0.5)) }
                    var f = 0.0
                    for y in 0..<h {
                        let fy = cos(Double.pi / Double(h) * Double(cy) * (Double(y) + 0.5))
                        for x in 0..<w { f += channel[x + y * w] * fx[x] * fy }
                    }
                    f /= Double(w * h)
                    if cx > 0 || cy > 0 {
                        ac.append(f)
                        scale = max(scale, abs(f))
                    } else {
                        dc = f
                    }
                    cx += 1
                }
            }
            if scale > 0 { ac = ac.map { 0.5 + 0.5 / scale * $0 } }
            return (dc, ac, scale)
        }
        let lc = encodeChannel(l, max(3, lx), max(3, ly))
        let pc = encodeChannel(p, 3, 3)
        let qc = encodeChannel(q, 3, 3)
        let ac = hasAlpha ? encodeChannel(a, 5, 5) : nil

        let isLandscape = w > h
        let header24 = round(63 * lc.dc) | (round(31.5 + 31.5 * pc.dc) << 6) | (round(31.5 + 31.5 * qc.dc) << 12)
            | (round(31 * lc.scale) << 18) | ((hasAlpha ? 1 : 0) << 23)
        let header16 = (isLandscape ? ly : lx) | (round(63 * pc.scale) << 3) | (round(63 * qc.scale) << 9) | ((isLandscape ? 1 : 0) << 15)
        var hash: [UInt8] = [UInt8(header24 & 255), UInt8((header24 >> 8) & 255), UInt8(header24 >> 16),
                             UInt8(header16 & 255), UInt8(header16 >> 8)]
        if let ac { hash.append(UInt8(round(15 * ac.dc) | (round(15 * ac.scale) << 4))) }
        var index = 0
        for terms in [lc.ac, pc.ac, qc.ac] + (ac.map { [$0.ac] } ?? []) {
            for f in terms {
                let position = (hasAlpha ? 6 : 5) + (index >> 1)
                if position == hash.count { hash.append(0) }
                hash[position] |= UInt8(round(15 * f) << ((index & 1) << 2))
                index += 1
            }
        }
        return hash
    }
}
