import DarkroomImaging
import Foundation

/// The steps that look for objects (imgproxy Pro's object detection):
/// blurring, outlining and cropping to them, and object gravity. Faces are
/// the one class Darkroom's detector finds; a search runs only for a step
/// that needs it, on the image as that step has it.
extension ProcessingRun {
    /// The image computed into memory, in the run's budget: the search
    /// reads its pixels, and the steps after it read them again.
    func materialised(_ image: VImage, for step: String) throws(DarkroomError) -> VImage {
        try reserveInMemory(image, for: step)
        return try computingPixels(of: image) { pass throws(VipsError) in try image.inMemory(pass) }
    }

    /// The weight `classes` gives faces, or nil where it names none: faces
    /// are all the detector knows, so such a list finds nothing.
    func faceWeight(in classes: ObjectClasses) throws(DarkroomError) -> Double? {
        guard BuildFeatures.faces else { throw .invalidOption(VImage.noFaceDetection) }
        guard classes.isValid else {
            throw .invalidOption("object classes '\(classes.identifier)': at most \(ObjectClasses.maxEntries) names of letters, digits, _ and -, with weights above 0")
        }
        return classes.weight(of: DetectedObject.classNames[0])
    }

    /// The objects of `classes` in `image` (in memory), in its pixels, each
    /// with its weight, the surest first.
    func objects(in image: VImage, classes: ObjectClasses) throws(DarkroomError) -> [ObjectFocus.Weighted] {
        let detection = options.objectDetection
        guard detection.isValid else {
            throw .invalidOption("object detection at \(detection.side) px with confidence \(detection.confidenceThreshold): the size is \(ObjectDetection.sides.lowerBound) to \(ObjectDetection.sides.upperBound), the confidence from 0 to below 1")
        }
        guard let weight = try faceWeight(in: classes) else { return [] }
        try killSwitch.check()
        // The grey copy and the detector's feature pyramid.
        try reserveMemory(MemoryCost.product(detection.side, detection.side, 8), for: "looking for faces at \(detection.side) pixels")
        let faces = try computingPixels(of: image) { pass throws(VipsError) in
            try image.faces(side: detection.side, threshold: detection.scoreThreshold, through: pass, stop: { killSwitch.isPulled })
        }
        try killSwitch.check()
        return faces.map { face in
            let object = DetectedObject(classID: 0, className: DetectedObject.classNames[0], confidence: ObjectDetection.confidence(score: face.score),
                                        left: Double(face.left), top: Double(face.top), width: Double(face.width), height: Double(face.height))
            return ObjectFocus.Weighted(object: object, weight: weight)
        }
    }

    /// How many of this image's pixels become one of the result's, by the
    /// first resize (1 where it enlarges or there is none): what a blur's
    /// sigma and an outline's width, given in the result's pixels, are
    /// multiplied by on an image before that resize.
    func pixelsPerResultPixel(_ image: VImage) -> Double {
        guard case .resize(let resize)? = options.operations.first(where: { if case .resize = $0 { true } else { false } }),
              resize.gravity.isValid
        else { return 1 }
        let geometry = resize.geometry(sourceWidth: image.width, sourceHeight: image.height, maxResultDimension: options.limits.maxResultDimension)
        return geometry.scaledWidth > 0 ? max(1, Double(image.width) / Double(geometry.scaledWidth)) : 1
    }

    /// Each object of `classes` blurred with `sigma` (in the result's pixels).
    func blurringDetections(_ image: VImage, sigma: Double, classes: ObjectClasses) throws(DarkroomError) -> VImage {
        guard sigma.isFinite, sigma > 0, StepRanges.blurSigma.contains(sigma) else { throw .invalidOption("blur_detections sigma \(sigma) is outside \(StepRanges.text(StepRanges.blurSigma))") }
        let pixels = try materialised(image, for: "looking for objects in")
        let found = try objects(in: pixels, classes: classes)
        guard !found.isEmpty else { return pixels }
        let scaled = sigma * pixelsPerResultPixel(pixels)
        try checkCost(of: "blur", sigma: scaled, on: pixels)
        let boxes = found.map { Self.pixelBox($0.object, inside: pixels) }
        return try vips("blurring the detected objects") { try pixels.blurred(sigma: scaled, areas: boxes) }
    }

    /// Each object of `classes` outlined in green, two result pixels wide,
    /// with its class and confidence above it.
    func drawingDetections(_ image: VImage, classes: ObjectClasses) throws(DarkroomError) -> VImage {
        let pixels = try materialised(image, for: "looking for objects in")
        let found = try objects(in: pixels, classes: classes)
        guard !found.isEmpty else { return pixels }
        let factor = pixelsPerResultPixel(pixels)
        let boxes = found.map { Self.pixelBox($0.object, inside: pixels) }
        let ink: [Double] = switch pixels.bands {
        case 1: [255]
        case 2: [255, 255]
        case 3: [0, 255, 0]
        default: [0, 255, 0] + Array(repeating: 255, count: pixels.bands - 3)
        }
        var drawn = try vips("outlining the detected objects") {
            try pixels.outlined(boxes, thickness: max(1, Int((2 * factor).rounded())), ink: ink)
        }
        let fontPixels = min(200, max(8, Int((12 * factor).rounded())))
        for (item, box) in zip(found, boxes) {
            let text = "\(item.object.className) \(String(format: "%.2f", item.object.confidence))"
            let label = try vips("labelling a detected object") {
                try VImage.markup("<span foreground=\"#00ff00\" background=\"#000000\">\(text)</span>",
                                  font: "sans \(fontPixels)px", width: max(1, drawn.width), dpi: 72)
            }
            let top = box.top >= label.height ? box.top - label.height : box.top
            drawn = try vips("labelling a detected object") {
                try drawn.watermarked(with: label, left: box.left, top: top, opacity: 1, replicate: false, gap: (0, 0))
            }
        }
        return drawn
    }

    /// The cut around every object of `classes`, `scale` times their box,
    /// widened to the shape of a fill that follows; the image as it is when
    /// none is found.
    func croppingToObjects(_ image: VImage, scale: Double, classes: ObjectClasses, layout: inout StepLayout) throws(DarkroomError) -> VImage {
        guard scale.isFinite, scale > 0, StepRanges.objectScale.contains(scale) else { throw .invalidOption("crop_objects scale \(scale) is outside \(StepRanges.text(StepRanges.objectScale))") }
        let pixels = try materialised(image, for: "looking for objects in")
        let found = try objects(in: pixels, classes: classes).map(\.object)
        guard !found.isEmpty else { return pixels }
        let (imageWidth, imageHeight) = (Double(pixels.width), Double(pixels.height))
        let left = found.map(\.left).min()!, top = found.map(\.top).min()!
        let right = found.map(\.right).max()!, bottom = found.map(\.bottom).max()!
        var (width, height) = ((right - left) * scale, (bottom - top) * scale)
        if let aspect = fillAspectRatio() {
            if width / height < aspect { width = height * aspect } else { height = width / aspect }
            // Too large for the image: the largest of that shape inside it.
            if width > imageWidth { (width, height) = (imageWidth, imageWidth / aspect) }
            if height > imageHeight { (width, height) = (imageHeight * aspect, imageHeight) }
        }
        let cutWidth = max(1, min(pixels.width, Int(width.rounded())))
        let cutHeight = max(1, min(pixels.height, Int(height.rounded())))
        let cutLeft = max(0, min(pixels.width - cutWidth, Int(((left + right) / 2 - Double(cutWidth) / 2).rounded())))
        let cutTop = max(0, min(pixels.height - cutHeight, Int(((top + bottom) / 2 - Double(cutHeight) / 2).rounded())))
        layout.croppedToObjects = true
        return try vips("crop") { try pixels.cropped(left: cutLeft, top: cutTop, width: cutWidth, height: cutHeight) }
    }

    /// The asked width over height of the resize to come, when it fills a
    /// box of both sides.
    private func fillAspectRatio() -> Double? {
        guard case .resize(let resize)? = options.operations.first(where: { if case .resize = $0 { true } else { false } }),
              resize.mode == .fill || resize.mode == .fillDown, let width = resize.width, let height = resize.height, width > 0, height > 0
        else { return nil }
        return Double(width) / Double(height)
    }

    /// A `width` x `height` cut of `image` placed by object gravity: around
    /// the objects given (in `image`'s pixels) or, when nil, those found in
    /// it. Where there are none: smart gravity, or the centre.
    func objectsCut(_ image: VImage, width: Int, height: Int, gravity: Gravity, offsetScale: Double,
                    objects given: [ObjectFocus.Weighted]?) throws(DarkroomError) -> (image: VImage, placement: (left: Int, top: Int)?) {
        let position = options.objectsPosition
        guard position.gravity.isValid, !position.gravity.readsPixels else {
            throw .invalidOption("objects position \(position.gravity.key) is not a side, a corner, the centre or a focus point")
        }
        var pixels = image
        var found = given
        if found == nil {
            pixels = try materialised(image, for: "looking for objects in")
            found = try objects(in: pixels, classes: gravity.objectClasses)
        }
        let focus = ObjectFocus(objects: found ?? [], mode: options.objectDetection.gravityMode, position: options.objectsPosition)
        return (pixels, focus.placement(image: (pixels.width, pixels.height), cut: (width, height), offsetScale: offsetScale))
    }

    /// An object's box in whole pixels, inside the image.
    static func pixelBox(_ object: DetectedObject, inside image: VImage) -> (left: Int, top: Int, width: Int, height: Int) {
        let left = max(0, min(image.width - 1, Int(object.left.rounded(.down))))
        let top = max(0, min(image.height - 1, Int(object.top.rounded(.down))))
        let right = max(left + 1, min(image.width, Int(object.right.rounded(.up))))
        let bottom = max(top + 1, min(image.height, Int(object.bottom.rounded(.up))))
        return (left, top, right - left, bottom - top)
    }
}
