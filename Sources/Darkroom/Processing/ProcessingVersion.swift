import DarkroomImaging

/// The version of what the two pixel engines make, in every processed cache
/// key (memory, disk, the shared cache) and so in every result's ETag: a
/// result made before either engine's output changed is never served
/// after, and clients and CDNs revalidate.
///
/// ``number`` is raised by hand whenever either engine's output changes for
/// the same request; `ProcessingVersionTests` keeps the outputs of a set of
/// fixture requests and fails when one changes while the number does not.
/// The libvips version is part of it too, since an upgrade of libvips (or
/// the codecs under it) changes pixels without any change here.
public enum ProcessingVersion {
    /// 2: the thumbnail path in libvips' own arithmetic; one EXIF reader
    /// and one colour-profile rule for both engines. 3: imgproxy's
    /// geometry (centre placement, fractional offsets, the device pixel
    /// ratio, extend and padding measured by the resize, the result limit
    /// scaling down). 4: AVIF at imgproxy's speed 8 (libvips effort 1).
    /// 5: text watermarks as imgproxy Pro draws them (markup, black sans 16).
    /// 6: every answer format written from the thumbnail path's pixels.
    /// 7: AVIF sources through the thumbnail path. 8: JPEG answers with
    /// Huffman tables made for each image.
    public static let number = 8

    /// The text in keys: the number and libvips' version.
    public static let current = "\(number)+vips\(VipsRuntime.version)"
}
