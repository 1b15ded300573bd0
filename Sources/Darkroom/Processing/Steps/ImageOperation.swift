import Foundation

/// One step applied to an image's pixels. Steps run in the order given.
///
/// Each step has a stable ``identifier`` that cache keys are built from.
public enum ImageOperation: Sendable, Hashable, Codable {
    case resize(Resize)
    case crop(CropRect)
    /// Cuts a `width` x `height` region, placed by gravity (imgproxy's
    /// `crop`). A side from 1 up is in pixels; between 0 and 1, a fraction
    /// of the image's side; 0, the whole side.
    /// With `aspect`, the region is first brought to that aspect ratio
    /// (imgproxy Pro's `crop_aspect_ratio`).
    case cropPlaced(width: Double, height: Double, gravity: Gravity, aspect: CropAspect? = nil)
    /// Cuts away a border of one colour (imgproxy's `trim`): pixels that
    /// differ from `colour` (the top-left pixel's when nil) by at most
    /// `threshold` are border. With `equalHorizontal`, as much is cut from
    /// the left as from the right (the less of the two); `equalVertical`
    /// the same for top and bottom. An image that is all border stays as it
    /// is.
    case trim(threshold: Double, colour: RGBColour?, equalHorizontal: Bool, equalVertical: Bool)
    /// The classic sepia matrix blended with the identity by `intensity`
    /// (0 leaves the image as it is; 1 is full sepia).
    case sepia(intensity: Double)
    case grayscale
    /// imgproxy Pro's `adjust`: `brightness` added in 8-bit steps
    /// (-255...255), `contrast` around mid-grey and `saturation` as a
    /// multiple of CIE LCh chroma (each 0...100; 1 leaves the image).
    case adjust(brightness: Int, contrast: Double, saturation: Double)
    /// imgproxy Pro's `duotone` (and `monochrome`, from black to its
    /// colour): luminance mapped from `shadows` to `highlights`, blended
    /// with the image by `intensity` (0...1).
    case duotone(intensity: Double, shadows: RGBColour, highlights: RGBColour)
    /// imgproxy Pro's `colorize`: `colour` laid over the image at `opacity`
    /// (0...1); with `keepAlpha`, transparency stays as it was.
    case colorize(opacity: Double, colour: RGBColour, keepAlpha: Bool)
    /// imgproxy Pro's `background_alpha` with `background`: transparency
    /// filled with `colour` at `alpha` (0...1), the result keeping alpha.
    case backgroundWithAlpha(RGBColour, alpha: Double)
    /// imgproxy Pro's `blur_areas`: a Gaussian blur of `sigma` (in the
    /// result's pixels) inside each area, given as fractions of the upright
    /// source's sides.
    case blurAreas(sigma: Double, areas: [BlurArea])
    /// imgproxy Pro's `blur_detections`: a Gaussian blur of `sigma` (in the
    /// result's pixels) over each detected object of `classes`.
    case blurDetections(sigma: Double, classes: ObjectClasses)
    /// imgproxy Pro's `draw_detections`: each detected object of `classes`
    /// outlined, with its class and confidence.
    case drawDetections(classes: ObjectClasses)
    /// imgproxy Pro's `crop_objects`: a cut around every detected object of
    /// `classes`, `scale` times their box (1: exactly the box), widened to
    /// the shape of a fill that follows; a `cropPlaced` step right after it
    /// is skipped when objects were found, and nothing is cut when none were.
    case cropObjects(scale: Double, classes: ObjectClasses)
    /// imgproxy Pro's unsharp masking, after a resize: `always`, or only
    /// where the resize before it made the image smaller and no `sharpen`
    /// step follows (`onDownscale`, Pro's `auto`).
    case unsharpMasking(onDownscale: Bool, weight: Double, divider: Double)
    /// imgproxy Pro's `gradient`: `colour` through a linear ramp from
    /// transparent to `opacity` (0...1), along `angle` degrees clockwise from
    /// "down", from `start` to `stop` (0...1) of the way.
    case gradient(opacity: Double, colour: RGBColour, angle: Double, start: Double, stop: Double)
    /// imgproxy Pro's `progressive_blur`: sharp where a ramp along `angle`
    /// (as ``gradient``'s) starts, blurred with `sigma` where it stops,
    /// blended between (the image and its blur, weighted by the ramp).
    case progressiveBlur(sigma: Double, angle: Double, start: Double, stop: Double)
    /// A Gaussian blur of the given sigma, in pixels.
    case blur(sigma: Double)
    /// Unsharp masking with the given sigma, in pixels.
    case sharpen(sigma: Double)
    /// Turns clockwise by a multiple of 90 degrees (imgproxy's `rot`).
    case rotate(degrees: Int)
    /// Mirrors left to right and/or top to bottom (imgproxy's `fl`).
    case flip(horizontal: Bool, vertical: Bool)
    /// Averages blocks of `size` x `size` pixels (imgproxy's `pix`).
    case pixelate(size: Int)
    /// Adds space around the image (imgproxy's `pd`), filled with
    /// `background`; with none, transparent where the image has alpha and
    /// white where it has not.
    case padding(top: Int, right: Int, bottom: Int, left: Int, background: RGBColour?)
    /// Fills what is transparent with a colour and drops alpha (imgproxy's
    /// `bg`).
    case background(RGBColour)
    /// A canvas around an image smaller than `width` x `height` (either may
    /// be nil: that side stays), the image placed by `gravity` and the rest
    /// filled as padding is; with `aspectOnly`, the smallest canvas of that
    /// aspect ratio instead (imgproxy's `extend` and `extend_aspect_ratio`).
    case extend(width: Int?, height: Int?, aspectOnly: Bool, gravity: Gravity, background: RGBColour?)
    /// imgproxy's extend, extend-aspect-ratio and padding, measured by the
    /// resize before it (see ``Frame``).
    case frame(Frame)
    /// An image laid over the result (imgproxy's `wm`).
    case watermark(Watermark)

    /// The seeds' default: sepia at 0.8.
    public static let defaultSepiaIntensity = 0.8

    /// A stable text form, such as "resize:fill:600:400:north:0" or "sepia:0.8".
    public var identifier: String {
        switch self {
        case .resize(let r):
            // Minimums and zoom only when set, so that older keys stay the same.
            return "resize:\(r.mode.rawValue):\(r.width.map(String.init) ?? "auto"):\(r.height.map(String.init) ?? "auto"):\(r.gravity.key):\(r.enlarge ? 1 : 0)"
                + (r.minWidth.map { ":mw\($0)" } ?? "") + (r.minHeight.map { ":mh\($0)" } ?? "")
                + (r.zoomX == nil && r.zoomY == nil ? "" : ":z\(Self.format(r.zoomX ?? 1))x\(Self.format(r.zoomY ?? 1))")
                + (r.dpr.map { ":dpr\(Self.format($0))" } ?? "")
                + (r.algorithm.map { $0 == .lanczos3 ? "" : ":ra-\($0.rawValue)" } ?? "")
        case .crop(let c):
            return "crop:\(c.x):\(c.y):\(c.width):\(c.height)"
        case .cropPlaced(let width, let height, let gravity, let aspect):
            return "crop:\(Self.format(width)):\(Self.format(height)):\(gravity.key)" + (aspect.map { ":car\(Self.format($0.ratio))\($0.enlarge ? "e" : "")" } ?? "")
        case .trim(let threshold, let colour, let equalHorizontal, let equalVertical):
            return "trim:\(Self.format(threshold)):\(colour?.hex ?? "auto"):\(equalHorizontal ? 1 : 0):\(equalVertical ? 1 : 0)"
        case .watermark(let watermark):
            return watermark.identifier
        case .sepia(let intensity):
            return "sepia:\(Self.format(intensity))"
        case .grayscale:
            return "grayscale"
        case .adjust(let brightness, let contrast, let saturation):
            return "adjust:\(brightness):\(Self.format(contrast)):\(Self.format(saturation))"
        case .duotone(let intensity, let shadows, let highlights):
            return "duotone:\(Self.format(intensity)):\(shadows.hex):\(highlights.hex)"
        case .colorize(let opacity, let colour, let keepAlpha):
            return "colorize:\(Self.format(opacity)):\(colour.hex):\(keepAlpha ? 1 : 0)"
        case .unsharpMasking(let onDownscale, let weight, let divider):
            return "unsharp:\(onDownscale ? "auto" : "always"):\(Self.format(weight)):\(Self.format(divider))"
        case .gradient(let opacity, let colour, let angle, let start, let stop):
            return "gradient:\(Self.format(opacity)):\(colour.hex):\(Self.format(angle)):\(Self.format(start)):\(Self.format(stop))"
        case .progressiveBlur(let sigma, let angle, let start, let stop):
            return "progressive-blur:\(Self.format(sigma)):\(Self.format(angle)):\(Self.format(start)):\(Self.format(stop))"
        case .backgroundWithAlpha(let colour, let alpha):
            return "background:\(colour.hex):\(Self.format(alpha))"
        case .blurAreas(let sigma, let areas):
            return "blur-areas:\(Self.format(sigma))" + areas.map { ":\(Self.format($0.left)),\(Self.format($0.top)),\(Self.format($0.width)),\(Self.format($0.height))" }.joined()
        case .blurDetections(let sigma, let classes):
            return "blur-detections:\(Self.format(sigma)):\(classes.identifier)"
        case .drawDetections(let classes):
            return "draw-detections:\(classes.identifier)"
        case .cropObjects(let scale, let classes):
            return "crop-objects:\(Self.format(scale)):\(classes.identifier)"
        case .blur(let sigma):
            return "blur:\(Self.format(sigma))"
        case .sharpen(let sigma):
            return "sharpen:\(Self.format(sigma))"
        case .rotate(let degrees):
            return "rotate:\(degrees)"
        case .flip(let horizontal, let vertical):
            return "flip:\(horizontal ? 1 : 0):\(vertical ? 1 : 0)"
        case .pixelate(let size):
            return "pixelate:\(size)"
        case .padding(let top, let right, let bottom, let left, let background):
            return "padding:\(top):\(right):\(bottom):\(left):\(background?.hex ?? "auto")"
        case .background(let colour):
            return "background:\(colour.hex)"
        case .frame(let frame):
            return frame.identifier
        case .extend(let width, let height, let aspectOnly, let gravity, let background):
            return "extend\(aspectOnly ? "-aspect" : ""):\(width.map(String.init) ?? "auto"):\(height.map(String.init) ?? "auto"):\(gravity.key):\(background?.hex ?? "auto")"
        }
    }

    /// Numbers in identifiers: shortest round-trip form, so 0.8 is "0.8".
    static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : "\(value)"
    }
}

extension ImageOperation {
    /// The sepia matrix blended with the identity: (1 - i) I + i S.
    static func sepiaMatrix(intensity i: Double) -> [Double] {
        let s: [Double] = [0.393, 0.769, 0.189,
                           0.349, 0.686, 0.168,
                           0.272, 0.534, 0.131]
        let identity: [Double] = [1, 0, 0, 0, 1, 0, 0, 0, 1]
        return zip(identity, s).map { (1 - i) * $0 + i * $1 }
    }
}

extension ImageOperation {
    /// Whether the step can make an image larger than the one it takes:
    /// what the result limit is checked after.
    var addsPixels: Bool {
        switch self {
        case .resize, .padding, .extend, .frame: true
        case .crop, .cropPlaced, .trim, .sepia, .grayscale, .blur, .sharpen, .rotate, .flip, .pixelate, .background, .watermark,
             .adjust, .duotone, .colorize, .backgroundWithAlpha, .blurAreas, .unsharpMasking, .gradient, .progressiveBlur,
             .blurDetections, .drawDetections, .cropObjects: false
        }
    }

    /// Whether the step asks for its image's rows out of the order a
    /// source decoded in one pass gives them (a quarter or half turn, a
    /// vertical flip, areas blurred one after another): the source is then
    /// decoded with random access.
    /// Steps that read their image twice (trim, smart and object gravity,
    /// the objects' steps) make their own copy in memory, in the budget.
    var readsRowsOutOfOrder: Bool {
        switch self {
        case .rotate(let degrees): degrees % 360 != 0
        case .flip(_, let vertical): vertical
        // Each area is cut out and put back in turn: the rows of one after
        // those of the next.
        case .blurAreas(_, let areas): areas.count > 0
        default: false
        }
    }

    /// Whether the step looks for objects in the image.
    var detectsObjects: Bool {
        switch self {
        case .blurDetections, .drawDetections, .cropObjects: true
        case .resize(let resize): resize.gravity.kind == .objects
        case .cropPlaced(_, _, let gravity, _): gravity.kind == .objects
        default: false
        }
    }
}

/// A rectangle as fractions (0...1) of an image's sides.
public struct BlurArea: Sendable, Hashable, Codable {
    public var left: Double
    public var top: Double
    public var width: Double
    public var height: Double

    public init(left: Double, top: Double, width: Double, height: Double) {
        self.left = left
        self.top = top
        self.width = width
        self.height = height
    }

    /// The same area on the image turned upright by the EXIF `orientation`
    /// (1 to 8), as fractions of the upright image's sides.
    func upright(fromStored orientation: Int) -> BlurArea {
        let (l, t, w, h) = (left, top, width, height)
        switch orientation {
        case 2: return BlurArea(left: 1 - l - w, top: t, width: w, height: h)
        case 3: return BlurArea(left: 1 - l - w, top: 1 - t - h, width: w, height: h)
        case 4: return BlurArea(left: l, top: 1 - t - h, width: w, height: h)
        // The stored rows become columns.
        case 5: return BlurArea(left: t, top: l, width: h, height: w)
        case 6: return BlurArea(left: 1 - t - h, top: l, width: h, height: w)
        case 7: return BlurArea(left: 1 - t - h, top: 1 - l - w, width: h, height: w)
        case 8: return BlurArea(left: t, top: 1 - l - w, width: h, height: w)
        default: return self
        }
    }

    /// In whole pixels of a `width` x `height` image, cut to it.
    func pixels(width imageWidth: Int, height imageHeight: Int) -> (left: Int, top: Int, width: Int, height: Int) {
        let left = min(imageWidth, max(0, Int((left * Double(imageWidth)).rounded())))
        let top = min(imageHeight, max(0, Int((top * Double(imageHeight)).rounded())))
        let right = min(imageWidth, max(left, Int(((self.left + width) * Double(imageWidth)).rounded())))
        let bottom = min(imageHeight, max(top, Int(((self.top + height) * Double(imageHeight)).rounded())))
        return (left, top, right - left, bottom - top)
    }
}

/// The aspect ratio a placed crop is brought to (imgproxy Pro's
/// `crop_aspect_ratio`): its longer side made shorter, or with `enlarge`
/// its shorter side longer, as far as the image reaches (then both sides
/// shrink, keeping the ratio). The gravity places the corrected region.
public struct CropAspect: Sendable, Hashable, Codable {
    /// Width over height.
    public var ratio: Double
    public var enlarge: Bool

    public init(ratio: Double, enlarge: Bool = false) {
        self.ratio = ratio
        self.enlarge = enlarge
    }

    /// The most `ratio` takes, either way.
    public static let ratioRange = 0.0001...10_000.0

    /// `width` x `height`, within a `maxWidth` x `maxHeight` image, brought
    /// to the ratio.
    public func corrected(width: Int, height: Int, maxWidth: Int, maxHeight: Int) -> (width: Int, height: Int) {
        var (w, h) = (Double(width), Double(height))
        if (w / h > ratio) != enlarge { w = h * ratio } else { h = w / ratio }
        // Past the image: the largest region of the ratio inside it.
        let fit = min(1, Double(maxWidth) / w, Double(maxHeight) / h)
        (w, h) = (w * fit, h * fit)
        return (min(maxWidth, max(1, Int(w.rounded()))), min(maxHeight, max(1, Int(h.rounded()))))
    }
}
