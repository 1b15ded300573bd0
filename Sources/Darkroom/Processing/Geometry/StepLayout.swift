/// What one step of a run leaves for the steps after it: the last resize's
/// geometry, which the frame and the watermark measure by, and the frame
/// that resize counts towards the result limit.
struct StepLayout {
    var geometry: ResizeGeometry?
    var frame: Frame?
    /// Whether a `crop_objects` step cut the image to its objects, so that
    /// the placed crop after it is skipped.
    var croppedToObjects = false
    /// The EXIF orientation the source was turned upright by (1: none):
    /// `blur_areas` are fractions of the image as stored, as Pro reads them.
    var sourceOrientation = 1

    /// The device pixel ratio the last resize settled on; 1 before any.
    var dprScale: Double { geometry?.dprScale ?? 1 }
}
