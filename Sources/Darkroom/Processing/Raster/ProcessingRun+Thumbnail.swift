import DarkroomImaging
import NIOCore
import Tracing

extension ProcessingRun {
    /// The usual server request (a JPEG, PNG or WebP made smaller, perhaps
    /// cropped by a fill and toned sepia; ``ThumbnailRequest`` says exactly
    /// which) decoded and resampled without libvips; see ``Thumbnail``.
    /// Returns nil when the run is not of that shape, when the decoder
    /// declines the source, or when this path would hold more than the
    /// memory budget where libvips streams: libvips then does the whole run
    /// and gives any error. The pixels are libvips' own (the same decode
    /// scale, resampling arithmetic and crop). A plain JPEG is written by
    /// the path's encoder at libvips' quality and chroma subsampling; any
    /// other answer by the libvips run's own writing stage.
    func thumbnail(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) -> ProcessedImage? {
        guard let request = ThumbnailRequest(options, sourceFormat: format),
              let (image, header) = try thumbnailPixels(raw, request: request)
        else { return nil }
        let source = ProcessedImage.SourceInfo(format: format, width: header.width, height: header.height)
        guard request.writesOwnJPEG else {
            // Held while libvips' savers read them in place: counted before
            // the encoder's own working set is.
            try reserveMemory(image.width * image.height * 4, for: "the \(image.width) x \(image.height) pixels to be written")
            return try Traces.span("darkroom.encode", under: trace) { () throws(DarkroomError) in
                guard let answer = try image.withVipsImage({ pixels throws(DarkroomError) in
                    try written(pixels, sourceFormat: format, source: source)
                }) else { throw DarkroomError(.processingFailed, "libvips could not take the \(image.width) x \(image.height) pixels to write") }
                return answer
            }
        }
        guard let bytes = Traces.span("darkroom.encode", under: trace, {
            image.encodedJPEG(quality: options.output.quality(for: .jpeg), { ByteBuffer(bytes: $0) })
        }) else { return nil }
        try killSwitch.check()
        return ProcessedImage(bytes: bytes, format: .jpeg, width: image.width, height: image.height, source: source)
    }

    /// The thumbnail path's pixels before they are encoded, with the
    /// source's header; nil where ``thumbnail(_:format:)`` hands the run
    /// to libvips.
    func thumbnailPixels(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) -> (RGBXImage, Thumbnail.Header)? {
        guard let request = ThumbnailRequest(options, sourceFormat: format) else { return nil }
        return try thumbnailPixels(raw, request: request)
    }

    private func thumbnailPixels(_ raw: UnsafeRawBufferPointer, request: ThumbnailRequest) throws(DarkroomError) -> (RGBXImage, Thumbnail.Header)? {
        let (kind, resize, sepia) = (request.kind, request.resize, request.sepia)
        // As on the libvips path, and before any of its numbers is used.
        try resize.validate()
        guard let header = Thumbnail.header(raw, format: kind), request.accepts(header) else { return nil }
        let pixels = header.width.multipliedReportingOverflow(by: header.height)
        guard !pixels.overflow, pixels.partialValue <= options.limits.maxSourcePixels else { return nil }

        // The same arithmetic as the libvips run: scale, then any crop.
        let geometry = resize.geometry(sourceWidth: header.width, sourceHeight: header.height,
                                       maxResultDimension: options.limits.maxResultDimension)
        let (scaledWidth, scaledHeight) = (geometry.scaledWidth, geometry.scaledHeight)
        guard scaledWidth <= header.width, scaledHeight <= header.height else { return nil }
        let (width, height) = (geometry.resultWidth, geometry.resultHeight)
        // As on the libvips path, the step's image after its crop is what is checked.
        try checkResultSize(width: width, height: height)
        let (left, top) = resize.gravity.placement(outer: (scaledWidth, scaledHeight), inner: (width, height),
                                                   offsetScale: geometry.dprScale)
        let shrink = ShrinkOnLoad.plan(operations: options.operations, format: request.source,
                                       width: header.width, height: header.height).factor
        let decoded = Thumbnail.decodedSize(format: kind, width: header.width, height: header.height, shrink: shrink)
        guard scaledWidth <= decoded.width, scaledHeight <= decoded.height else { return nil }
        let plan = Thumbnail.Plan(shrink: shrink, decodedWidth: decoded.width, decodedHeight: decoded.height,
                                  horizontalScale: Double(scaledWidth) / Double(decoded.width),
                                  verticalScale: Double(scaledHeight) / Double(decoded.height),
                                  cropLeft: left, cropTop: top, cropWidth: width, cropHeight: height, kernels: kernels)
        guard let scaled = Thumbnail.scaledSize(of: plan), scaled == (scaledWidth, scaledHeight) else { return nil }

        // What decoding holds, before anything is allocated. libvips too
        // decodes a WebP or an AVIF whole; the rest it streams, so past the
        // budget it takes them.
        if kind == .webp || kind == .avif {
            try checkDecodeMemory(decoded.width * decoded.height * 3, for: "the whole \(decoded.width) x \(decoded.height) image")
        }
        guard let memory = Thumbnail.memory(raw, format: kind, plan: plan), memory <= options.limits.maxDecodeMemory,
              kind != .png || memory <= Self.maxPNGBytes
        else { return nil }

        try killSwitch.check()
        let image: RGBXImage
        do {
            // Decoded and resampled in one pass, rows as they come.
            image = try Traces.span("darkroom.decode", under: trace) { () throws(Thumbnail.Failure) in
                try Thumbnail.decode(raw, format: kind, plan: plan, maxScans: options.limits.maxJPEGScans,
                                     maxMemory: options.limits.maxDecodeMemory, killSwitch: killSwitch.vips)
            }
        } catch .cancelled {
            throw .cancelled
        } catch .tooManyScans {
            throw Self.tooManyScans(SourceFacts.jpegStructure(raw)?.scans ?? options.limits.maxJPEGScans + 1, limit: options.limits.maxJPEGScans)
        } catch .overBudget {
            throw DarkroomError(.tooMuchMemory, "decoding the image needed more than the limit of \(Self.mebibytes(options.limits.maxDecodeMemory)) a request")
        } catch {
            return nil
        }
        Traces.span("darkroom.process", under: trace) {
            if sepia > 0 {
                image.recombine(ImageOperation.sepiaMatrix(intensity: sepia))
            }
        }
        return (image, header)
    }

    /// The most this path holds for a PNG, which it inflates whole (at
    /// about twice zlib's rate); a bigger one goes to libvips, which
    /// streams it, even within the budget.
    static let maxPNGBytes = 40 << 20

    static func thumbnailFormat(_ format: ImageFormat) -> Thumbnail.Format? {
        switch format {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        default: nil
        }
    }
}
