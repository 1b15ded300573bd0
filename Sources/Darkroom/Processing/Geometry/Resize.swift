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
    /// The device pixel ratio (imgproxy's `dpr`): the asked size, minimums
    /// and the gravity's pixel offsets are CSS pixels at this ratio, lowered
    /// where the source is too small to reach it without enlarging (see
    /// ``geometry(sourceWidth:sourceHeight:frame:maxResultDimension:)``); nil: 1.
    public var dpr: Double?
    /// The resampling kernel (imgproxy Pro's `resizing_algorithm`); nil:
    /// Lanczos-3, the only one the thumbnail path runs.
    public var algorithm: Algorithm?

    /// Resampling kernels, by imgproxy's names.
    public enum Algorithm: String, Sendable, Hashable, Codable, CaseIterable {
        case nearest, linear, cubic, lanczos2, lanczos3
    }

    public init(width: Int?, height: Int?, mode: Mode = .fit, gravity: Gravity = .centre, enlarge: Bool = false,
                minWidth: Int? = nil, minHeight: Int? = nil, zoomX: Double? = nil, zoomY: Double? = nil, dpr: Double? = nil) {
        self.width = width
        self.height = height
        self.mode = mode
        self.gravity = gravity
        self.enlarge = enlarge
        self.minWidth = minWidth
        self.minHeight = minHeight
        self.zoomX = zoomX
        self.zoomY = zoomY
        self.dpr = dpr
    }

    /// Refuses sizes, minimums and zooms out of range: what every engine
    /// checks before any of them takes part in arithmetic (a zoom of 1e300
    /// or NaN would otherwise trap converting a size to an integer).
    func validate() throws(DarkroomError) {
        for side in [width, height] {
            if let side, side <= 0 || !StepRanges.side.contains(side) {
                throw .invalidOption("resize size \(side) is outside 1...\(StepRanges.side.upperBound)")
            }
        }
        for side in [minWidth, minHeight] {
            if let side, !StepRanges.side.contains(side) {
                throw .invalidOption("resize minimum \(side) is outside \(StepRanges.text(StepRanges.side))")
            }
        }
        for zoom in [zoomX, zoomY] {
            if let zoom, !(zoom > 0 && StepRanges.zoom.contains(zoom)) {
                throw .invalidOption("resize zoom \(zoom) is not above 0 and at most \(StepRanges.text(StepRanges.zoom.upperBound))")
            }
        }
        if let dpr, !(dpr > 0 && dpr <= 100) {
            throw .invalidOption("resize device pixel ratio \(dpr) is not above 0 and at most 100")
        }
        guard gravity.isValid else { throw .invalidOption("gravity \(gravity.key) is out of range") }
    }

    /// The scale of each side for a source, before the result limit: what
    /// shrink-on-load may decode at.
    func scales(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (horizontal: Double, vertical: Double) {
        let g = geometry(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        return (g.horizontalScale, g.verticalScale)
    }

    /// The size of the result for a source of the given size.
    func outputSize(fromWidth sourceWidth: Int, height sourceHeight: Int) -> (width: Int, height: Int) {
        let g = geometry(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
        return (g.resultWidth, g.resultHeight)
    }
}
