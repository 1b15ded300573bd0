import Darkroom

extension ImageURLOptions {
    /// One option's arguments, read the way imgproxy reads them, every
    /// number checked against its range.
    struct Arguments {
        let name: String
        let values: [String]
        /// Arguments read leniently, to be logged.
        var warnings: [String] = []

        /// The same option's arguments from `index` on.
        func dropping(_ index: Int) -> Arguments {
            Arguments(name: name, values: Array(values.dropFirst(index)))
        }

        func need(_ count: ClosedRange<Int>) throws(ImageURLError) {
            guard count.contains(values.count) else {
                let expected = count.lowerBound == count.upperBound ? "\(count.lowerBound)" : "\(count.lowerBound) to \(count.upperBound)"
                throw .init("option '\(name)' takes \(expected) argument(s), not \(values.count)")
            }
        }

        /// The argument at `index`, nil when absent or empty.
        func text(_ index: Int) -> String? {
            index < values.count && !values[index].isEmpty ? values[index] : nil
        }

        /// A whole number of pixels (or a count) in ``StepRanges/side``.
        func size(_ index: Int, _ what: String) throws(ImageURLError) -> Int? {
            try whole(index, what, StepRanges.side)
        }

        /// A whole number in `range`.
        func whole(_ index: Int, _ what: String, _ range: ClosedRange<Int>) throws(ImageURLError) -> Int? {
            guard let text = text(index) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw .init("option '\(name)': \(what) '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }

        /// A hex colour (`ff8000` or `f80`).
        func colour(_ index: Int) throws(ImageURLError) -> RGBColour? {
            guard let text = text(index) else { return nil }
            guard let colour = RGBColour(hex: text) else { throw .init("option '\(name)': '\(text)' is not a hex colour (ff8000)") }
            return colour
        }

        /// One of a type's names.
        func choice<T: RawRepresentable & CaseIterable>(_ index: Int, _ what: String, _: T.Type) throws(ImageURLError) -> T?
            where T.RawValue == String {
            guard let text = text(index) else { return nil }
            guard let value = T(rawValue: text) else {
                throw .init("option '\(name)': unknown \(what) '\(text)' (\(T.allCases.map(\.rawValue).joined(separator: ", ")))")
            }
            return value
        }

        func number(_ index: Int, _ what: String, _ range: ClosedRange<Double>) throws(ImageURLError) -> Double? {
            guard let text = text(index) else { return nil }
            guard let value = Double(text), value.isFinite, range.contains(value) else {
                throw .init("option '\(name)': \(what) '\(text)' is not a number from \(StepRanges.text(range.lowerBound)) to \(StepRanges.text(range.upperBound))")
            }
            return value
        }

        /// A number in a range of whole numbers (pixels that may be a
        /// fraction of a side).
        func number(_ index: Int, _ what: String, _ range: ClosedRange<Int>) throws(ImageURLError) -> Double? {
            try number(index, what, Double(range.lowerBound)...Double(range.upperBound))
        }

        /// An argument that may not be left out or empty.
        func required<T>(_ value: T?, _ what: String) throws(ImageURLError) -> T {
            guard let value else { throw .init("option '\(name)' needs \(what)") }
            return value
        }

        /// A quality: 0 (the server's default) or in ``StepRanges/quality``.
        func quality(_ index: Int) throws(ImageURLError) -> Int {
            guard let q = try whole(index, "quality", 0...StepRanges.quality.upperBound) else {
                throw .init("option '\(name)' needs a quality from 0 to \(StepRanges.quality.upperBound)")
            }
            return q
        }

        /// `vtt` and `vta`'s shared tail: the step (0: one frame, nil),
        /// the frame's box, then extend, trim, fill and the focus point.
        mutating func videoSprite(_ layout: VideoSprite.Layout) throws(ImageURLError) -> VideoSprite? {
            let step = try number(0, "step", VideoSprite.steps) ?? 0
            guard step != 0 else { return nil }
            var sprite = VideoSprite(layout: layout, step: step, width: try whole(3, "width", VideoSprite.sides) ?? 0,
                                     height: try whole(4, "height", VideoSprite.sides) ?? 0)
            (sprite.extend, sprite.trim, sprite.fill) = (bool(5) ?? false, bool(6) ?? false, bool(7) ?? false)
            sprite.focusX = try number(8, "focus x", VideoSprite.focus) ?? 0.5
            sprite.focusY = try number(9, "focus y", VideoSprite.focus) ?? 0.5
            if let problem = sprite.problem { throw .init("option '\(name)': \(problem)") }
            return sprite
        }

        /// Go's booleans (1, t, T, true, TRUE, True and their falses);
        /// anything else is false with a warning, as imgproxy reads it.
        mutating func bool(_ index: Int) -> Bool? {
            guard let text = text(index) else { return nil }
            switch text {
            case "1", "t", "T", "true", "TRUE", "True": return true
            case "0", "f", "F", "false", "FALSE", "False": return false
            default:
                warnings.append("option '\(name)': '\(text)' is not a boolean, read as false")
                return false
            }
        }

        /// extend's arguments: on or off, then its gravity; nil when off.
        mutating func extend() throws(ImageURLError) -> Gravity? {
            try need(1...4)
            let on = bool(0) ?? false
            let gravity = try self.gravity(from: 1, allowed: .extend) ?? .centre
            return on ? gravity : nil
        }

        /// Where a gravity may be used, and so which kinds it may take.
        enum GravityUse {
            case crop, extend, watermark, objectsPosition

            func allows(_ kind: Gravity.Kind) -> Bool {
                switch (self, kind) {
                case (.crop, _): true
                case (.extend, .smart), (.extend, .objects): false
                case (.extend, _): true
                case (.watermark, .smart), (.watermark, .focusPoint), (.watermark, .objects): false
                case (.watermark, _): true
                case (.objectsPosition, .smart), (.objectsPosition, .objects): false
                case (.objectsPosition, _): true
                }
            }
        }

        /// imgproxy's gravity from `index`: a kind, then the offsets (pixels
        /// from 1 up, fractions of the side below), or `fp` and exactly two
        /// coordinates from 0 to 1; `sm` takes none. Nil when the kind is
        /// left out.
        mutating func gravity(from index: Int, count: Int = .max, allowed use: GravityUse) throws(ImageURLError) -> Gravity? {
            let args = Array(values.dropFirst(index).prefix(count))
            guard let text = args.first, !text.isEmpty else { return nil }
            if text == "obj" || text == "objw" {
                // imgproxy Pro's object gravity: class names (and weights) follow.
                guard use.allows(.objects) else { throw .init("option '\(name)': object gravity '\(text)' is only for crops") }
                return .objects(try objectClasses(from: index + 1, weighted: text == "objw"))
            }
            guard args.count <= 3 else { throw .init("option '\(name)': a gravity takes a type and two offsets at most") }
            guard let kind = Self.gravityKinds[text], use.allows(kind) else {
                let names = Self.gravityKinds.filter { use.allows($0.value) }.keys.sorted().joined(separator: ", ")
                throw .init("option '\(name)': unsupported gravity '\(text)' (\(names))")
            }
            if kind == .smart, args.count > 1 { throw .init("option '\(name)': smart gravity takes no offsets") }
            if kind == .focusPoint, args.count != 3 { throw .init("option '\(name)': a focus point takes two coordinates (fp:0.5:0.3)") }
            let range = kind == .focusPoint ? StepRanges.fraction : StepRanges.offset
            var offsets = [0.0, 0.0]
            for (i, text) in args.dropFirst().enumerated() {
                guard let value = Double(text), value.isFinite, range.contains(value) else {
                    throw .init("option '\(name)': \(kind == .focusPoint ? "a focus point's coordinate" : "an offset") '\(text)' is not a number from \(StepRanges.text(range.lowerBound)) to \(StepRanges.text(range.upperBound))")
                }
                offsets[i] = value
            }
            return Gravity(kind, x: offsets[0], y: offsets[1])
        }

        static let gravityKinds: [String: Gravity.Kind] = [
            "no": .north, "so": .south, "ea": .east, "we": .west, "ce": .centre,
            "noea": .northEast, "nowe": .northWest, "soea": .southEast, "sowe": .southWest, "sm": .smart, "fp": .focusPoint,
        ]
    }
}
