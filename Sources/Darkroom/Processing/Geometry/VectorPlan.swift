package import Foundation

/// How large a vector source (an SVG, a PDF page) is drawn, as imgproxy
/// draws vectors at load: at the scale at which the run's first resize
/// meets its box, enlarging allowed, measured on the size the steps before
/// that resize leave (a quarter turn swaps the sides, a crop cuts them).
/// The steps' measures in pixels are then scaled to the drawing
/// (``steps(_:drawnAt:)``), so a crop of 100 pixels of a drawing made three
/// times larger cuts 300.
package struct VectorPlan: Sendable, Codable, Equatable {
    package var resize: Resize
    /// What the steps before the resize do to the size, in order.
    package var before: [Step] = []

    package enum Step: Sendable, Codable, Equatable {
        /// A quarter turn, either way: the sides swap.
        case turn
        /// A placed crop: its sides (0 the whole side, under 1 a fraction
        /// of it, else pixels) and its aspect ratio.
        case cut(width: Double, height: Double, aspect: CropAspect?)
    }

    /// nil where no resize comes, or where a step before it leaves a size
    /// only its pixels decide (a trim, a crop to the objects found): the
    /// vector is drawn at its own size then.
    package init?(_ operations: [ImageOperation]) {
        var before: [Step] = []
        for operation in operations {
            switch operation {
            case .resize(let resize):
                guard resize.gravity.isValid else { return nil }
                (self.resize, self.before) = (resize, before)
                return
            case .rotate(let degrees):
                if (degrees / 90) % 2 != 0 { before.append(.turn) }
            case .flip, .blurAreas, .blurDetections, .drawDetections:
                break
            case .cropPlaced(let width, let height, let gravity, let aspect):
                guard gravity.kind != .objects else { return nil }
                before.append(.cut(width: width, height: height, aspect: aspect))
            default:
                return nil
            }
        }
        return nil
    }

    /// The size the resize meets, of a `width` x `height` drawing at scale 1.
    package func sizeBeforeResize(width: Int, height: Int) -> (width: Int, height: Int) {
        var size = (width: width, height: height)
        for step in before {
            switch step {
            case .turn:
                size = (size.height, size.width)
            case .cut(let width, let height, let aspect):
                if let cut = try? CropAspect.placedSize(width: width, height: height, aspect: aspect, in: size) { size = cut }
            }
        }
        return size
    }

    /// The scale to draw a `width` x `height` vector at: the first
    /// resize's on the size before it, enlarging allowed, so that its box
    /// is met; then no more pixels than `maxPixels`.
    package func scale(width: Int, height: Int, maxResultDimension: Int, maxPixels: Int) -> Double {
        guard width > 0, height > 0 else { return 1 }
        let (w, h) = sizeBeforeResize(width: width, height: height)
        var resize = resize
        resize.enlarge = true
        let geometry = resize.geometry(sourceWidth: w, sourceHeight: h, maxResultDimension: maxResultDimension)
        // Half a pixel more: a renderer's size rounds down, and the resize
        // then takes the drawing to its exact size.
        let scale = max((Double(geometry.scaledWidth) + 0.5) / Double(w), (Double(geometry.scaledHeight) + 0.5) / Double(h))
        return Self.withinPixels(scale.isFinite && scale > 0 ? scale : 1, width: width, height: height, maxPixels: maxPixels)
    }

    /// The scale an SVG or PDF drawing is made at: `plan`'s (its first
    /// resize's box met), else 1; no more pixels than `maxPixels`; from
    /// 0.001 to `ceiling`, the drawing library's own bound (the pixel
    /// limit bounds what is drawn past the floor).
    package static func drawingScale(of plan: VectorPlan?, width: Int, height: Int, maxResultDimension: Int, maxPixels: Int,
                                     ceiling: Double) -> Double {
        guard width > 0, height > 0 else { return 1 }
        let scale = plan?.scale(width: width, height: height, maxResultDimension: maxResultDimension, maxPixels: maxPixels)
            ?? withinPixels(1, width: width, height: height, maxPixels: maxPixels)
        return min(ceiling, max(0.001, scale))
    }

    /// `operations` for a drawing made at `scale`: the first resize without
    /// its zoom (the drawing has it already), and the crop's and its
    /// gravity's pixels before it multiplied by the scale.
    package static func steps(_ operations: [ImageOperation], drawnAt scale: Double) -> [ImageOperation] {
        var steps = operations
        func scaled(_ value: Double) -> Double {
            // Pixels stay pixels (1 or more); fractions and 0 are kept.
            // No further than the largest side a URL may write: more
            // than any drawing has, so the cut is the same, and an
            // error never names a number the URL did not.
            abs(value) >= 1 ? (value < 0 ? -1 : 1) * min(1_000_000, max(1, (abs(value) * scale).rounded())) : value
        }
        for index in steps.indices {
            switch steps[index] {
            case .resize(var resize):
                (resize.zoomX, resize.zoomY) = (nil, nil)
                steps[index] = .resize(resize)
                return steps
            case .cropPlaced(let width, let height, var gravity, let aspect):
                if gravity.kind != .focusPoint { (gravity.x, gravity.y) = (scaled(gravity.x), scaled(gravity.y)) }
                steps[index] = .cropPlaced(width: scaled(width), height: scaled(height), gravity: gravity, aspect: aspect)
            default:
                break
            }
        }
        return steps
    }

    /// `scale`, lowered as far as a drawing of `width` x `height` at it
    /// needs to hold no more than `maxPixels`, its sides rounded up as a
    /// renderer may round them.
    package static func withinPixels(_ scale: Double, width: Int, height: Int, maxPixels: Int) -> Double {
        let (w, h, limit) = (Double(width), Double(height), Double(maxPixels))
        var scale = scale
        if w * h * scale * scale > limit { scale *= (limit / (w * h * scale * scale)).squareRoot() }
        // The square root meets the limit exactly; each side rounded up
        // may pass it by a row or a column.
        for _ in 0..<64 where (w * scale).rounded(.up) * (h * scale).rounded(.up) > limit {
            scale *= 1 - 1 / max(w * scale, h * scale, 1)
        }
        return scale
    }
}

extension CropAspect {
    /// The size a placed crop of `width` x `height` cuts from an image of
    /// `size` (a side of 0 is the whole side, under 1 a fraction of it,
    /// else pixels, never past the image), brought to `aspect`.
    package static func placedSize(width: Double, height: Double, aspect: CropAspect?,
                                   in size: (width: Int, height: Int)) throws(DarkroomError) -> (width: Int, height: Int) {
        func side(_ value: Double, of whole: Int) throws(DarkroomError) -> Int {
            guard value.isFinite, (0...1_000_000).contains(value) else {
                throw .invalidOption("crop side \(value) is not from 0 (the whole side) to 1000000")
            }
            if value == 0 { return whole }
            return value < 1 ? max(1, Int((Double(whole) * value).rounded())) : Int(value)
        }
        var cut = (width: min(size.width, try side(width, of: size.width)), height: min(size.height, try side(height, of: size.height)))
        if let aspect {
            guard aspect.ratio.isFinite, ratioRange.contains(aspect.ratio) else {
                throw .invalidOption("crop aspect ratio \(aspect.ratio) is outside \(ratioRange.lowerBound)...\(ratioRange.upperBound.formatted())")
            }
            cut = aspect.corrected(width: cut.width, height: cut.height, maxWidth: size.width, maxHeight: size.height)
        }
        return cut
    }
}

/// How a vector drawing's plan goes to its child and its drawing comes
/// back: the plan as a JSON argument; on standard output, the scale the
/// child drew at (an IEEE double, 8 bytes, little-endian), then the PNG, so
/// that the steps' pixels can be scaled to it (``VectorPlan/steps(_:drawnAt:)``).
package enum VectorDrawingOutput {
    package static func argument(_ plan: VectorPlan?) -> String? {
        plan.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    package static func plan(from argument: String) -> VectorPlan? {
        try? JSONDecoder().decode(VectorPlan.self, from: Data(argument.utf8))
    }

    package static func written(png: Data, scale: Double) -> Data {
        withUnsafeBytes(of: scale.bitPattern.littleEndian) { Data($0) } + png
    }

    /// The PNG and its scale; nil when the output is too short to hold them.
    package static func read(_ output: Data) -> (png: Data, scale: Double)? {
        guard output.count > 8 else { return nil }
        var bits: UInt64 = 0
        for (index, byte) in output.prefix(8).enumerated() { bits |= UInt64(byte) << (8 * UInt64(index)) }
        let scale = Double(bitPattern: bits)
        guard scale.isFinite, scale > 0 else { return nil }
        return (Data(output.dropFirst(8)), scale)
    }
}
