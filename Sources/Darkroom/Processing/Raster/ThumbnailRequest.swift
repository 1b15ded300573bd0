import DarkroomImaging

/// The one statement of which requests the thumbnail path takes (see
/// ``ProcessingRun/thumbnail(_:format:)``): a JPEG, PNG, WebP or AVIF source,
/// one resize whose gravity reads no pixels, then nothing or one sepia
/// step, the first page, and no metadata kept. Everything else is
/// libvips' alone. What the source itself must be is ``accepts(_:)``,
/// read from its header.
struct ThumbnailRequest: Equatable {
    var source: ImageFormat
    /// The source as the path's decoder knows it.
    var kind: Thumbnail.Format
    var resize: Resize
    /// The sepia intensity after the resize; 0 for none.
    var sepia: Double
    /// Whether the path's own encoder writes the answer: a baseline JPEG
    /// at a plain quality. Any other answer (WebP, AVIF, a byte limit,
    /// autoquality, the best format, ...) is written from the path's
    /// pixels by the libvips run's own writing stage.
    var writesOwnJPEG: Bool
    /// Whether a rotated source is to be turned upright.
    var autoRotate: Bool
    /// Whether an EXIF copyright is to be kept (the path keeps none).
    var keepsCopyright: Bool

    init?(_ options: ProcessingOptions, sourceFormat: ImageFormat) {
        let output = options.output
        guard let kind = ProcessingRun.thumbnailFormat(sourceFormat),
              // This path writes no metadata: anything to keep goes to libvips.
              output.stripMetadata, output.stripColourProfile,
              options.pages.first == 0, options.pages.count == 1,
              // An AVIF's embedded thumbnail, where asked for, is libvips'.
              kind != .avif || !options.enforceThumbnail,
              case .resize(let resize)? = options.operations.first, !resize.gravity.readsPixels, resize.gravity.isValid,
              // Its resampler is Lanczos-3; other kernels are libvips'.
              (resize.algorithm ?? .lanczos3) == .lanczos3,
              // Its encoder states no resolution and carries no profile.
              output.dpi == 0, output.colourProfile == nil,
              let sepia = Self.sepia(after: options.operations.dropFirst())
        else { return nil }
        self.source = sourceFormat
        self.kind = kind
        self.resize = resize
        self.sepia = sepia
        let format = output.best ? output.format : output.format ?? output.formatKeeping(sourceFormat, hasAlpha: false)
        self.writesOwnJPEG = format == .jpeg && output.maxBytes == nil && output.autoquality == nil
            && !output.progressive && !output.encoder.tunesJPEG && (1...100).contains(output.quality(for: .jpeg))
        self.autoRotate = options.autoRotate
        self.keepsCopyright = output.keepCopyright
    }

    /// Whether the source, by its header, reads here as libvips reads it:
    /// a kind the decoder supports, in sRGB, upright or not to be turned,
    /// and with no copyright to keep.
    func accepts(_ header: Thumbnail.Header) -> Bool {
        header.isSupported && !header.hasForeignProfile && !(keepsCopyright && header.hasCopyright)
            && (header.orientation == 1 || !autoRotate)
    }

    /// What may follow the resize: nothing, or one sepia step. The sepia
    /// intensity (0 for none), or nil when the steps are not of that shape.
    private static func sepia(after rest: ArraySlice<ImageOperation>) -> Double? {
        guard let step = rest.first else { return 0 }
        guard rest.count == 1, case .sepia(let intensity) = step, (0...1).contains(intensity) else { return nil }
        return intensity
    }
}
