import DarkroomImaging

/// The optional parts this build of the library has: the package's traits
/// (`Faces`, `Video`), off unless the package that depends on Darkroom
/// asks for them, on in the server's own build. Where one is compiled out,
/// what needs it is refused with an error that says so.
public enum BuildFeatures {
    /// Face detection (object gravity, blurring and drawing detections).
    public static var faces: Bool { VImage.hasFaceDetection }
    /// Video sources answered by a frame.
    public static var video: Bool { VideoFrames.isAvailable }

    /// The names of those this build has, for `/health` and `--version`.
    public static var names: [String] {
        (faces ? ["faces"] : []) + (video ? ["video"] : [])
    }
}
