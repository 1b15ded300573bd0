public import Darkroom

/// imgproxy Pro's object detection options, free here: `gravity:obj` and
/// `gravity:objw` (read with the other gravities), `objects_position`/
/// `obj_pos`/`op`, `blur_detections`/`bd`, `draw_detections`/`dd` and
/// `crop_objects`. Pro's docs give `co` to both `contrast` and
/// `crop_objects`: here `co` with one argument is contrast, and with a
/// scale and class names, crop_objects.
extension ImageURLOptions {
    /// `blur_detections`: the sigma, in the result's pixels, and the classes.
    public struct DetectionBlur: Sendable, Hashable {
        public var sigma: Double
        public var classes: ObjectClasses
    }

    /// `crop_objects`: the scale of the objects' box, and the classes.
    public struct ObjectCrop: Sendable, Hashable {
        public var scale: Double
        public var classes: ObjectClasses
    }

    static var objectRules: OptionRules<ImageURLOptions> {
        var table = OptionRules<ImageURLOptions>(route: .processing)
        table.add(URLOption(["objects_position", "obj_pos", "op"], "%type:%x_offset:%y_offset", ArgumentRange("offsets", StepRanges.offset), cost: .geometry, pro: true, test: "ObjectOptionsTests.objectsPositionTakesGravitiesFocusPointsAndProp")) { o, a throws(ImageURLError) in o.objectsPosition = try a.objectsPosition() }
        table.add(URLOption(["blur_detections", "bd"], "%sigma:%class_name1:%class_name2:...:%class_nameN", ArgumentRange("sigma", StepRanges.blurSigma), cost: .detector, pro: true, limit: "faces only: the detector is dlib's face detector, not a YOLO network", test: "ObjectOptionsTests.facesAreServedBlurredAndListedByInfo")) { o, a throws(ImageURLError) in
            try a.need(1...(1 + ObjectClasses.maxEntries))
            let sigma = try a.number(0, "sigma", StepRanges.blurSigma) ?? 0
            o.blurDetections = sigma > 0 ? DetectionBlur(sigma: sigma, classes: try a.objectClasses(from: 1, weighted: false)) : nil
        }
        table.add(URLOption(["draw_detections", "dd"], "%draw:%class_name1:%class_name2:...:%class_nameN", cost: .detector, pro: true, limit: "faces only, as blur_detections", test: "ObjectOptionsTests.detectionStepsComeFirstAndCropObjectsBeforeTheCrop")) { o, a throws(ImageURLError) in
            try a.need(1...(1 + ObjectClasses.maxEntries))
            o.drawDetections = a.bool(0) ?? false ? try a.objectClasses(from: 1, weighted: false) : nil
        }
        table.add(URLOption(["crop_objects", "co"], "%scale_factor:%class_name1:%class_name2:...:%class_nameN", ArgumentRange("scale", StepRanges.objectScale, above: true), ArgumentRange("a class weight", StepRanges.objectWeight, above: true), cost: .detector, pro: true, limit: "faces only, as blur_detections", test: "ObjectOptionsTests.coIsContrastAloneAndCropObjectsWithClasses"), readAs: ["crop_objects"]) { o, a throws(ImageURLError) in try o.applyCropObjects(&a) }
        return table
    }

    mutating func applyCropObjects(_ a: inout Arguments) throws(ImageURLError) {
        try a.need(1...(1 + ObjectClasses.maxEntries))
        let scale = try a.number(0, "scale", StepRanges.objectScale) ?? 0
        cropObjects = scale > 0 ? ObjectCrop(scale: scale, classes: try a.objectClasses(from: 1, weighted: false)) : nil
    }
}

extension ImageURLOptions.Arguments {
    /// `objects_position`: a side, corner or centre with offsets, a focus
    /// point, or `prop`.
    mutating func objectsPosition() throws(ImageURLError) -> ObjectsPosition {
        try need(1...3)
        guard text(0) == "prop" else { return ObjectsPosition(try gravity(from: 0, allowed: .objectsPosition) ?? .centre) }
        try need(1...1)
        return ObjectsPosition(proportional: true)
    }

    /// Class names from `index` on (`face:cat`), or with `weighted` names
    /// and weights in turn (`all:2:face:10`).
    func objectClasses(from index: Int, weighted: Bool) throws(ImageURLError) -> ObjectClasses {
        let rest = Array(values.dropFirst(index))
        var entries: [ObjectClasses.Entry] = []
        if weighted {
            guard rest.count.isMultiple(of: 2) else { throw .init("option '\(name)': objw takes class names and weights in pairs (objw:face:2:cat:3)") }
            for pair in stride(from: 0, to: rest.count, by: 2) {
                guard let weight = try number(index + pair + 1, "weight", StepRanges.objectWeight), weight > 0 else {
                    throw .init("option '\(name)': the weight of '\(rest[pair])' must be a number above 0")
                }
                entries.append(.init(name: rest[pair], weight: weight))
            }
        } else {
            entries = rest.filter { !$0.isEmpty }.map { .init(name: $0) }
        }
        let classes = ObjectClasses(entries)
        guard classes.isValid else {
            throw .init("option '\(name)': at most \(ObjectClasses.maxEntries) class names, each of letters, digits, _ and - (up to \(ObjectClasses.maxNameLength))")
        }
        return classes
    }
}
