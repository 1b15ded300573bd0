/// Where object gravity puts a cut: around the objects the mode chooses,
/// which sit in it as ``ObjectsPosition`` says, kept inside the image.
struct ObjectFocus {
    struct Weighted {
        var object: DetectedObject
        var weight: Double
    }

    var objects: [Weighted]
    var mode: ObjectDetection.GravityMode
    var position: ObjectsPosition

    /// The cut's top-left corner; nil when there are no objects.
    func placement(image: (width: Int, height: Int), cut: (width: Int, height: Int), offsetScale: Double = 1) -> (left: Int, top: Int)? {
        guard let focus = focusBox(image: image, cut: cut) else { return nil }
        let (w, h) = (Double(cut.width), Double(cut.height))
        let centre = (x: (focus.left + focus.right) / 2, y: (focus.top + focus.bottom) / 2)
        var left: Double, top: Double
        if position.proportional {
            // The objects' centre as far across the cut as across the image.
            left = centre.x - centre.x / Double(image.width) * w
            top = centre.y - centre.y / Double(image.height) * h
        } else if position.gravity.kind == .focusPoint {
            left = centre.x - position.gravity.x * w
            top = centre.y - position.gravity.y * h
        } else {
            // The objects' box placed in the cut as a gravity places an image.
            let box = (width: max(1, Int((focus.right - focus.left).rounded())), height: max(1, Int((focus.bottom - focus.top).rounded())))
            let inner = position.gravity.placement(outer: cut, inner: box, offsetScale: offsetScale, allowOverflow: true)
            left = focus.left - Double(inner.left)
            top = focus.top - Double(inner.top)
        }
        let maxLeft = max(0, image.width - cut.width), maxTop = max(0, image.height - cut.height)
        return (max(0, min(maxLeft, Int(left.rounded()))), max(0, min(maxTop, Int(top.rounded()))))
    }

    /// The box around the objects the cut is placed by.
    func focusBox(image: (width: Int, height: Int), cut: (width: Int, height: Int)) -> (left: Double, top: Double, right: Double, bottom: Double)? {
        guard !objects.isEmpty else { return nil }
        let chosen: [DetectedObject]
        switch mode {
        case .maxScoreArea:
            chosen = mostCovered(image: image, cut: cut)
        case .oneBest, .oneBestCentermost:
            let centre = (x: Double(image.width) / 2, y: Double(image.height) / 2)
            let reach = max(1, (centre.x * centre.x + centre.y * centre.y).squareRoot())
            let scored = objects.map { item -> (DetectedObject, Double) in
                var score = item.object.area * item.object.confidence * item.weight
                if mode == .oneBestCentermost {
                    let dx = item.object.left + item.object.width / 2 - centre.x, dy = item.object.top + item.object.height / 2 - centre.y
                    score *= 2 - (dx * dx + dy * dy).squareRoot() / reach
                }
                return (item.object, score)
            }
            chosen = [scored.max { $0.1 < $1.1 }!.0]
        }
        return (chosen.map(\.left).min()!, chosen.map(\.top).min()!, chosen.map(\.right).max()!, chosen.map(\.bottom).max()!)
    }

    /// The objects that the best-scoring cut covers at least half of: each
    /// object scores its weight times the part of it inside the cut. The
    /// cuts tried start at each object's edges and centre.
    private func mostCovered(image: (width: Int, height: Int), cut: (width: Int, height: Int)) -> [DetectedObject] {
        let (w, h) = (Double(cut.width), Double(cut.height))
        let maxLeft = Double(max(0, image.width - cut.width)), maxTop = Double(max(0, image.height - cut.height))
        func candidates(_ starts: [Double], _ ends: [Double], _ side: Double, _ maxStart: Double) -> [Double] {
            Array(Set((starts + ends.map { $0 - side } + zip(starts, ends).map { ($0 + $1 - side) / 2 }).map { max(0, min(maxStart, $0.rounded())) })).sorted()
        }
        let lefts = candidates(objects.map(\.object.left), objects.map(\.object.right), w, maxLeft)
        let tops = candidates(objects.map(\.object.top), objects.map(\.object.bottom), h, maxTop)
        func covered(_ item: Weighted, _ left: Double, _ top: Double) -> Double {
            item.object.intersection(left: left, top: top, right: left + w, bottom: top + h) / max(item.object.area, 1)
        }
        var best = (score: -1.0, left: 0.0, top: 0.0)
        for left in lefts {
            for top in tops {
                let score = objects.reduce(0) { $0 + $1.weight * covered($1, left, top) }
                if score > best.score + 1e-9 { best = (score, left, top) }
            }
        }
        let inside = objects.filter { covered($0, best.left, best.top) >= 0.5 }.map(\.object)
        // Objects larger than the cut: the heaviest of them.
        return inside.isEmpty ? [objects.max { $0.weight * $0.object.area < $1.weight * $1.object.area }!.object] : inside
    }
}
