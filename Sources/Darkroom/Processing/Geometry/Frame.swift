/// What imgproxy puts around a resized image (`extend`,
/// `extend_aspect_ratio`, `padding`), measured by the resize before it:
/// the canvas is the resize's asked size, or the smallest of its aspect
/// ratio, at the device pixel ratio the resize settled on; the padding is
/// in CSS pixels at that ratio. After a step that is not a resize, the
/// ratio is 1 and there is no asked size.
public struct Frame: Sendable, Hashable, Codable {
    /// A canvas of the resize's asked size, the image placed by this gravity.
    public var extend: Gravity?
    /// A canvas of the asked size's aspect ratio, the image placed by this
    /// gravity (used only without ``extend``).
    public var extendAspectRatio: Gravity?
    public var padding: Padding?
    /// What fills the canvas and the padding; nil: transparent on an image
    /// with alpha, white on one without.
    public var background: RGBColour?

    public struct Padding: Sendable, Hashable, Codable {
        public var top: Int
        public var right: Int
        public var bottom: Int
        public var left: Int

        public init(top: Int, right: Int, bottom: Int, left: Int) {
            self.top = top
            self.right = right
            self.bottom = bottom
            self.left = left
        }

        var identifier: String { "\(top):\(right):\(bottom):\(left)" }
    }

    public init(extend: Gravity? = nil, extendAspectRatio: Gravity? = nil, padding: Padding? = nil, background: RGBColour? = nil) {
        self.extend = extend
        self.extendAspectRatio = extendAspectRatio
        self.padding = padding
        self.background = background
    }

    var identifier: String {
        "frame:" + [extend.map { "ex-\($0.key)" }, extendAspectRatio.map { "exar-\($0.key)" }, padding.map { "pd-\($0.identifier)" },
                    background.map { "bg-\($0.hex)" }].compactMap { $0 }.joined(separator: ":")
    }
}
