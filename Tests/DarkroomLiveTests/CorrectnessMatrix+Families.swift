import Foundation

/// The option families the matrix asks, each with what its answer must be,
/// worked out by imgproxy's order of steps (crop, resize, turn and flip,
/// padding and extend) in arithmetic of its own.
extension CorrectnessMatrixTests {
    /// A cell's answer: a 200 of this size, any 200 (where the size follows
    /// the content, as a trim's), or a 4xx whose text names the step.
    enum Expected: Equatable, Sendable {
        case size(Int, Int)
        case ok
        case refused(String)
        /// A 200 within the result limit, or a 4xx naming the limit.
        case withinLimit

        /// A size, or any 200 where a drawing that large would pass the
        /// pixel limit (it is then drawn smaller, as imgproxy's guard does).
        static func sized(_ size: (Int, Int)) -> Expected {
            Double(size.0) * Double(size.1) > Double(CorrectnessMatrixTests.pixelLimit) ? .ok : .size(size.0, size.1)
        }
    }

    struct Family: Sendable {
        var options: String
        /// In `make test`'s slice; the others in `make matrix`.
        var short: Bool
        /// Whether the family sets its own resize (asked without a box only).
        var ownsResize = false
        /// The answer for a `width` x `height` source (`vector`: an SVG or a
        /// PDF, drawn at the size asked), fitted to `box` first where given.
        var expected: @Sendable (_ width: Int, _ height: Int, _ box: Int?, _ vector: Bool) -> Expected

        init(_ options: String, short: Bool = false, ownsResize: Bool = false,
             _ expected: @escaping @Sendable (_ width: Int, _ height: Int, _ box: Int?, _ vector: Bool) -> Expected) {
            (self.options, self.short, self.ownsResize, self.expected) = (options, short, ownsResize, expected)
        }

        /// A step that keeps the size: the fitted source's.
        static func keeping(_ options: String, short: Bool = false) -> Family {
            Family(options, short: short) { w, h, box, v in .sized(fit(w, h, box, v)) }
        }
    }

    /// `w` x `h` fitted inside `box` x `box` (at `dpr`, and `zoom` after),
    /// as imgproxy's scale: never enlarged, but for vectors, drawn at the
    /// size asked.
    static func fit(_ w: Int, _ h: Int, _ box: Int?, _ vector: Bool, dpr: Double = 1, zoom: Double = 1) -> (Int, Int) {
        var scale = (box.map { min(Double($0) / Double(w), Double($0) / Double(h)) } ?? 1) * zoom
        if box == nil, vector { scale *= dpr }
        if !vector { scale = min(1, scale) }
        return (max(1, Int((Double(w) * scale).rounded())), max(1, Int((Double(h) * scale).rounded())))
    }

    /// A crop of `cw` x `ch` source pixels, then the fit; a vector is
    /// drawn at the scale that meets the box (imgproxy's scale-on-load,
    /// the crop's pixels scaled with it).
    static func crop(_ w: Int, _ h: Int, _ cw: Int, _ ch: Int, _ box: Int?, _ vector: Bool) -> Expected {
        .sized(fit(min(cw, w), min(ch, h), box, vector))
    }

    /// The kernel cost rule's most: pixels times sigma.
    static let maxKernelCost = 50_000_000.0

    static let families: [Family] = [
        Family("", short: true) { w, h, box, v in .sized(fit(w, h, box, v)) },
        Family("rot:90", short: true) { w, h, box, v in let (a, b) = fit(w, h, box, v); return .sized((b, a)) },
        Family("rot:180", short: true) { w, h, box, v in .sized(fit(w, h, box, v)) },
        Family("rot:270", short: true) { w, h, box, v in let (a, b) = fit(w, h, box, v); return .sized((b, a)) },
        Family("fl:0:1", short: true) { w, h, box, v in .sized(fit(w, h, box, v)) },
        Family("fl:1:1", short: true) { w, h, box, v in .sized(fit(w, h, box, v)) },
        Family("c:1000:800:so", short: true) { w, h, box, v in crop(w, h, 1000, 800, box, v) },
        Family("c:900:700:ea", short: true) { w, h, box, v in crop(w, h, 900, 700, box, v) },
        Family("pd:10:20", short: true) { w, h, box, v in let (a, b) = fit(w, h, box, v); return .sized((a + 40, b + 20)) },
        // Crops placed by what they see, by a point, and brought to a ratio.
        Family("c:1000:800:sm") { w, h, box, v in crop(w, h, 1000, 800, box, v) },
        Family("c:0.5:0.5:fp:0.8:0.8") { w, h, box, v in
            crop(w, h, max(1, Int((Double(w) * 0.5).rounded())), max(1, Int((Double(h) * 0.5).rounded())), box, v)
        },
        Family("c:1000:800/car:1") { w, h, box, v in let side = min(1000, w, 800, h); return crop(w, h, side, side, box, v) },
        // Resizes of their own.
        Family("rs:fill:300:200", ownsResize: true) { w, h, _, v in v || w >= 300 && h >= 200 ? .size(300, 200) : .ok },
        Family("rs:force:300:200", ownsResize: true) { w, h, _, v in v || w >= 300 && h >= 200 ? .size(300, 200) : .ok },
        Family("rs:fit:5000:0:1", ownsResize: true) { w, h, _, _ in
            // Enlarged to 5000 wide, the shape kept within the result limit.
            let scale = min(5000 / Double(w), 8192 / Double(h))
            return .sized((Int((Double(w) * scale).rounded()), Int((Double(h) * scale).rounded())))
        },
        // Past the result limit: both sides scaled by one factor, as
        // imgproxy's MAX_RESULT_DIMENSION, never one side cut alone.
        // (A photo's answer is held to its size however many pixels it has;
        // a drawing past the pixel limit is drawn smaller.)
        Family("rs:fit:0:20000:1", short: true, ownsResize: true) { w, h, _, v in
            let scale = min(20000 / Double(h), 8192 / Double(w), 8192 / Double(h))
            let size = (Int((Double(w) * scale).rounded()), Int((Double(h) * scale).rounded()))
            return v ? .sized(size) : .size(size.0, size.1)
        },
        Family("z:0.5") { w, h, box, v in .sized(fit(w, h, box, v, zoom: 0.5)) },
        Family("ex:1:so") { w, h, box, v in box.map { .size($0, $0) } ?? .sized((w, h)) },
        // Without a box, an SVG is drawn at the ratio; a PDF page at its size.
        Family("dpr:2") { w, h, box, v in box == nil && v ? .ok : .sized(fit(w, h, box.map { $0 * 2 }, v, dpr: 2)) },
        Family("t:10") { _, _, _, _ in .ok },
        // Steps that keep the size.
        .keeping("bl:2", short: true), .keeping("sh:1"), .keeping("pix:8"), .keeping("sepia"), .keeping("grayscale:1"),
        .keeping("br:30/co:1.2/sa:0.8"), .keeping("mc:0.5"), .keeping("dt:0.5:102030:f0e0d0"), .keeping("col:0.3:ff8000"),
        .keeping("gr:0.5"), .keeping("pbl:4"), .keeping("ush:always"), 
        .keeping("wm:0.8:soea/wmt:RGFya3Jvb20"), .keeping("bg:ff0000"), .keeping("dpi:300"), .keeping("cp:srgb"),
        .keeping("ct:matrix"), .keeping("sm:0"), .keeping("q:40"), .keeping("mb:30000"),
        // Areas blurred on the source before the resize, the sigma the
        // result's: past the cost rule (the areas' pixels times the sigma
        // there) a 4xx naming the step.
        // A vector with a box is drawn at the box's scale first (imgproxy's
        // scale-on-load), so its areas are blurred on the small drawing.
        Family("ba:5:0.1:0.1:0.3:0.3") { w, h, box, v in
            let (a, b) = fit(w, h, box, v)
            let (sw, sh) = v && box != nil ? (a, b) : (w, h)
            let sigma = 5 * Double(sw) / Double(a)
            if Double(sw) * 0.3 * Double(sh) * 0.3 * sigma > maxKernelCost { return .refused("blur_areas") }
            return .sized((a, b))
        },
        // Other answers' formats.
        .keeping("f:png", short: true), .keeping("f:webp"), .keeping("f:avif"), .keeping("f:heic"), .keeping("f:gif"),
        // Extremes: a blur past the cost rule, padding past the result
        // limit, a turn that is not a quarter's, a zoom past its range.
        Family("bl:100") { w, h, box, v in
            let (a, b) = fit(w, h, box, v)
            return Double(a) * Double(b) * 100 > maxKernelCost ? .refused("blur") : .sized((a, b))
        },
        Family("pd:5000") { _, _, _, _ in .withinLimit },
        Family("rot:45") { _, _, _, _ in .refused("90 degrees") },
        Family("z:200") { _, _, _, _ in .refused("factor") },
    ]
}
