import DarkroomImaging
import NIOCore

extension ProcessingRun {
    /// The usual server request (a JPEG, PNG or WebP made smaller, perhaps
    /// toned sepia, written as a baseline JPEG) without libvips; see
    /// ``Thumbnail``. Returns nil when the run is not of that shape, or
    /// when the decoder declines the source: libvips then does the whole
    /// run and gives any error. The result has the size, quality, chroma
    /// subsampling and decode scale that libvips would give it.
    func thumbnail(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) -> ProcessedImage? {
        guard let kind = Self.thumbnailFormat(format),
              (options.output.format ?? options.output.formatKeeping(format, hasAlpha: false)) == .jpeg, !options.output.progressive,
              options.output.maxBytes == nil,
              (1...100).contains(options.output.quality(for: .jpeg)),
              case .resize(let resize)? = options.operations.first, resize.gravity.kind != .smart, resize.gravity.isValid,
              [resize.width, resize.height].allSatisfy({ $0.map { (1...100_000).contains($0) } ?? true }),
              let sepia = Self.sepiaAfterResize(options.operations.dropFirst()),
              let header = Thumbnail.header(raw, format: kind), header.isSupported, !header.hasForeignProfile,
              // This path writes no metadata: anything to keep goes to libvips.
              options.output.stripMetadata, options.output.stripColourProfile, !(options.output.keepCopyright && header.hasCopyright),
              header.orientation == 1 || !options.autoRotate
        else { return nil }
        let pixels = header.width.multipliedReportingOverflow(by: header.height)
        guard !pixels.overflow, pixels.partialValue <= options.limits.maxSourcePixels else { return nil }

        // The same arithmetic as the libvips run: scale, then any fill crop.
        let (scaledWidth, scaledHeight) = resize.scaledSize(fromWidth: header.width, height: header.height)
        guard scaledWidth <= header.width, scaledHeight <= header.height else { return nil }
        let (width, height) = resize.cropSize(scaledWidth: scaledWidth, scaledHeight: scaledHeight,
                                              sourceWidth: header.width, sourceHeight: header.height)
            .map { (min($0.width, scaledWidth), min($0.height, scaledHeight)) } ?? (scaledWidth, scaledHeight)
        // As on the libvips path, the step's image after its crop is what is checked.
        try checkResultSize(width: width, height: height)
        let (left, top) = resize.gravity.placement(outer: (scaledWidth, scaledHeight), inner: (width, height))
        let shrink = ShrinkOnLoad.plan(operations: options.operations, format: format,
                                       width: header.width, height: header.height).factor

        try killSwitch.check()
        let image: RGBXImage
        do {
            image = try Thumbnail.decode(raw, format: kind, shrink: shrink, width: scaledWidth, height: scaledHeight,
                                         maxRawBytes: Self.maxRawBytes, killSwitch: killSwitch.vips)
        } catch .cancelled {
            throw .cancelled
        } catch {
            return nil
        }
        if sepia > 0 {
            image.recombine(ImageOperation.sepiaMatrix(intensity: sepia))
        }
        guard let bytes = image.encodedJPEG(left: left, top: top, width: width, height: height,
                                            quality: options.output.quality(for: .jpeg), { ByteBuffer(bytes: $0) })
        else { return nil }
        try killSwitch.check()
        return ProcessedImage(bytes: bytes, format: .jpeg, width: width, height: height,
                              source: .init(format: format, width: header.width, height: header.height))
    }

    /// The most a PNG's raw pixels may take on this path, which inflates
    /// them whole; a bigger one goes to libvips, which streams it.
    static let maxRawBytes = 32 << 20

    static func thumbnailFormat(_ format: ImageFormat) -> Thumbnail.Format? {
        switch format {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        default: nil
        }
    }

    /// What may follow the resize on this path: nothing, or one sepia step.
    /// The sepia intensity (0 for none), or nil when the steps are not of
    /// that shape.
    private static func sepiaAfterResize(_ rest: ArraySlice<ImageOperation>) -> Double? {
        guard let step = rest.first else { return 0 }
        guard rest.count == 1, case .sepia(let intensity) = step, (0...1).contains(intensity) else { return nil }
        return intensity
    }
}
