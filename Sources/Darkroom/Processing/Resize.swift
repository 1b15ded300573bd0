/// How to resize an image: fit inside a box, fill it, or force both sides.
///
/// A width or height of `nil` means "whatever keeps the aspect ratio".
/// Images are never enlarged unless ``enlarge`` is set.
public struct Resize: Sendable, Hashable, Codable {
    public enum Mode: String, Sendable, Hashable, Codable, CaseIterable {
        /// Scale to fit inside the box, keeping the aspect ratio.
        case fit
        /// Scale to cover the box, then crop what sticks out, by gravity.
        case fill
        /// Scale each side to the box, ignoring the aspect ratio.
        case force
        /// As fill, but a source smaller than the box is not enlarged: it is
        /// cropped to the box's aspect ratio instead.
        case fillDown = "fill-down"
        /// Fill when the source and the box have the same orientation
        /// (both portrait or both landscape), fit otherwise.
        case auto
    }

    public var width: Int?
    public var height: Int?
    public var mode: Mode
    public var gravity: Gravity
    public var enlarge: Bool
    /// The result is at least this wide (or high), enlarged if need be,
    /// the other side following (imgproxy's `min-width`, `min-height`).
    public var minWidth: Int?
    public var minHeight: Int?
    /// Each side's scale is multiplied by these after the box is applied,
    /// and so is the box a fill crops to (imgproxy's `zoom`); nil: 1.
    public var zoomX: Double?
    public var zoomY: Double?

    public init(width: Int?, height: Int?, mode: Mode = .fit, gravity: Gravity = .centre, enlarge: Bool = false,
                minWidth: Int? = nil, minHeight: Int? = nil, zoomX: Double? = nil, zoomY: Double? = nil) {
        self.width = width
        self.height = height
        self.mode = mode
        self.gravity = gravity
        self.enlarge = enlarge
        self.minWidth = minWidth
        self.minHeight = minHeight
        self.zoomX = zoomX
        self.zoomY = zoomY
    }

    /// Refuses sizes, minimums and zooms out of range: what every engine
    /// checks before any of them takes part in arithmetic (a zoom of 1e300
    /// or NaN would otherwise trap converting a size to an integer).
    func validate() throws(DarkroomError) {
        for side in [width, height] {
            if let side, side <= 0 || side > 100_000 {
                throw .invalidOption("resize size \(side) is outside 1...100000")
            }
        }
        for side in [minWidth, minHeight] {
            if let side, side < 0 || side > 100_000 {
                throw .invalidOption("resize minimum \(side) is outside 0...100000")
            }
        }
        for zoom in [zoomX, zoomY] {
            if let zoom, !(zoom > 0 && zoom <= 100) {
                throw .invalidOption("resize zoom \(zoom) is not above 0 and at most 100")
            }
        }
    }

    /// The box a fill crops to: the asked size, zoomed.
    private var box: (width: Int?, height: Int?) {
        (width.map { max(1, Int((Double($0) * (zoomX ?? 1)).rounded())) },
         height.map { max(1, Int((Double($0) * (zoomY ?? 1)).rounded())) })
    }

    /// The scale for each side of a `width` x `height` image, and the size
    /// of the result (before any fill crop, which ``outputSize(from:)`` gives).
    func scales(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (horizontal: Double, vertical: Double) {
        let sw = Double(sourceWidth), sh = Double(sourceHeight)
        let wScale = width.map { Double($0) / sw }
        let hScale = height.map { Double($0) / sh }
        var h: Double, v: Double
        switch (effectiveMode(sourceWidth: sourceWidth, sourceHeight: sourceHeight), wScale, hScale) {
        case (_, nil, nil):
            h = 1; v = 1
        case (.force, let w?, let hh?):
            h = w; v = hh
        // Force keeps a side given as 0 at the source's size, as imgproxy.
        case (.force, let w?, nil):
            h = w; v = 1
        case (.force, nil, let hh?):
            h = 1; v = hh
        case (.fit, let w?, let hh?), (.auto, let w?, let hh?):
            h = min(w, hh); v = h
        case (.fill, let w?, let hh?), (.fillDown, let w?, let hh?):
            h = max(w, hh); v = h
        case (_, let w?, nil):
            h = w; v = w
        case (_, nil, let hh?):
            h = hh; v = hh
        }
        h *= zoomX ?? 1
        v *= zoomY ?? 1
        // Not enlarged: both sides scaled back together, so that a forced
        // aspect ratio stays (imgproxy's arithmetic). A fill-down with
        // enlarge is a fill.
        if !enlarge, max(h, v) > 1 {
            let most = max(h, v)
            h /= most
            v /= most
        }
        // After the enlarge check, as imgproxy: a minimum enlarges.
        if let minWidth, minWidth > 0, Double(minWidth) / sw > h {
            v *= Double(minWidth) / sw / h
            h = Double(minWidth) / sw
        }
        if let minHeight, minHeight > 0, Double(minHeight) / sh > v {
            h *= Double(minHeight) / sh / v
            v = Double(minHeight) / sh
        }
        return (h, v)
    }

    /// The mode with ``Mode/auto`` decided for a source: fill when source
    /// and box are both landscape or both portrait, fit otherwise.
    func effectiveMode(sourceWidth: Int, sourceHeight: Int) -> Mode {
        guard mode == .auto else { return mode }
        guard let width, let height else { return .fit }
        return (sourceWidth >= sourceHeight) == (width >= height) ? .fill : .fit
    }

    /// The size of the crop after scaling, for the fill modes; nil for the
    /// others.
    func cropSize(scaledWidth: Int, scaledHeight: Int, sourceWidth: Int, sourceHeight: Int) -> (width: Int, height: Int)? {
        switch effectiveMode(sourceWidth: sourceWidth, sourceHeight: sourceHeight) {
        case .fill:
            return (min(box.width ?? scaledWidth, scaledWidth), min(box.height ?? scaledHeight, scaledHeight))
        case .fillDown:
            guard let width = box.width, let height = box.height else { return (scaledWidth, scaledHeight) }
            if scaledWidth >= width && scaledHeight >= height { return (width, height) }
            // Smaller than the box: the largest crop with the box's aspect ratio.
            let aspect = Double(width) / Double(height)
            let w = min(Double(scaledWidth), (Double(scaledHeight) * aspect).rounded())
            let h = min(Double(scaledHeight), (Double(scaledWidth) / aspect).rounded())
            return (max(1, Int(w)), max(1, Int(h)))
        case .fit, .force, .auto:
            return nil
        }
    }

    /// The size after scaling, before any fill crop, for a source of the
    /// given size.
    func scaledSize(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (width: Int, height: Int) {
        let s = scales(fromWidth: sourceWidth, height: sourceHeight)
        return (max(1, Int((Double(sourceWidth) * s.horizontal).rounded())),
                max(1, Int((Double(sourceHeight) * s.vertical).rounded())))
    }

    /// The size of the result for a source of the given size.
    func outputSize(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (width: Int, height: Int) {
        let (w, h) = scaledSize(fromWidth: sourceWidth, height: sourceHeight)
        return cropSize(scaledWidth: w, scaledHeight: h, sourceWidth: sourceWidth, sourceHeight: sourceHeight) ?? (w, h)
    }
}
