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
    }

    public var width: Int?
    public var height: Int?
    public var mode: Mode
    public var gravity: Gravity
    public var enlarge: Bool

    public init(width: Int?, height: Int?, mode: Mode = .fit, gravity: Gravity = .centre, enlarge: Bool = false) {
        self.width = width
        self.height = height
        self.mode = mode
        self.gravity = gravity
        self.enlarge = enlarge
    }

    /// The scale for each side of a `width` x `height` image, and the size
    /// of the result (before any fill crop, which ``outputSize(from:)`` gives).
    func scales(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (horizontal: Double, vertical: Double) {
        let sw = Double(sourceWidth), sh = Double(sourceHeight)
        let wScale = width.map { Double($0) / sw }
        let hScale = height.map { Double($0) / sh }
        var h: Double, v: Double
        switch (mode, wScale, hScale) {
        case (_, nil, nil):
            return (1, 1)
        case (.force, let w?, let hh?):
            h = w; v = hh
        case (.fit, let w?, let hh?):
            h = min(w, hh); v = h
        case (.fill, let w?, let hh?):
            h = max(w, hh); v = h
        case (_, let w?, nil):
            h = w; v = w
        case (_, nil, let hh?):
            h = hh; v = hh
        }
        if !enlarge {
            h = min(h, 1)
            v = min(v, 1)
        }
        return (h, v)
    }

    /// The size of the result for a source of the given size.
    func outputSize(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (width: Int, height: Int) {
        let s = scales(fromWidth: sourceWidth, height: sourceHeight)
        var w = max(1, Int((Double(sourceWidth) * s.horizontal).rounded()))
        var h = max(1, Int((Double(sourceHeight) * s.vertical).rounded()))
        if mode == .fill {
            if let width { w = min(w, width) }
            if let height { h = min(h, height) }
        }
        return (w, h)
    }
}
