import DarkroomImaging
import Foundation
import NIOCore

/// SVG sources: sanitised by Darkroom's own XML reader before anything
/// else sees them, then answered as SVG or rendered by librsvg into pixels
/// that run through the usual steps.
extension ProcessingRun {
    /// The answer to an SVG source.
    func svgRun() throws(DarkroomError) -> ProcessedImage {
        let document = try sanitisedSVG()
        let source = ProcessedImage.SourceInfo(format: .svg, width: document.width, height: document.height)
        let output = options.output
        if output.format == .svg || output.keepsVectors || output.skips(.svg) {
            // As imgproxy: the document as it is, whatever the steps say.
            return ProcessedImage(bytes: ByteBuffer(bytes: document.data), format: .svg, width: document.width, height: document.height,
                                  source: source)
        }
        var image = try drawingRun(of: document, options: options).runUntimed()
        image.source = source
        return image
    }

    /// What `/info` says of an SVG source: its own size, and placeholders
    /// from its drawing (where drawing is allowed).
    func svgInspect(includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        let document = try sanitisedSVG()
        // Drawn at its own size (within the pixel limit), not the URL's.
        var plain = options
        plain.operations = []
        var info = try drawingRun(of: document, options: plain).inspect(includeGPS: includeGPS, asked: asked)
        info.format = .svg
        if document.width > 0, document.height > 0 { (info.width, info.height) = (document.width, document.height) }
        return info
    }

    /// The source, sanitised where the limits say (imgproxy's default).
    func sanitisedSVG() throws(DarkroomError) -> SVGSanitizer.Sanitized {
        guard options.limits.sanitizesSVG else { return SVGSanitizer.Sanitized(data: data, width: 0, height: 0) }
        do {
            return try SVGSanitizer.sanitizedDocument(data, maxBytes: options.limits.maxSourceBytes)
        } catch {
            throw Self.error(for: error)
        }
    }

    /// A run with `options` over the document drawn into pixels (a PNG) at
    /// the size their first resize asks.
    func drawingRun(of document: SVGSanitizer.Sanitized, options: ProcessingOptions) throws(DarkroomError) -> ProcessingRun {
        // libvips draws at most 10,000,000 pixels a side; a document that
        // says more would be drawn wrong (at 1 x 1), not smaller.
        guard document.width <= Self.maxSVGSide, document.height <= Self.maxSVGSide else {
            throw DarkroomError(.tooManyPixels, "the SVG says it is \(document.width) x \(document.height) pixels; at most \(Self.maxSVGSide) a side can be drawn")
        }
        guard options.limits.svgRendering else {
            throw DarkroomError(.notAnImage, "SVG sources are not rendered here: libvips marks its SVG renderer (librsvg) untrusted (darkroom serve --svg-render turns it on); asked without a format, an SVG is answered as SVG")
        }
        VipsRuntime.allowSVG()
        // The drawing is bounded by the pixel limit; its uncompressed bytes
        // (4 a pixel) are not the source's and pass the byte limit.
        var drawing = options
        drawing.limits.maxSourceBytes = .max
        var run = ProcessingRun(data: try rendered(document.data, operations: options.operations), options: drawing, killSwitch: killSwitch)
        run.usesThumbnail = usesThumbnail
        run.kernels = kernels
        run.trace = trace
        return run
    }

    /// The document rendered to pixels, as an uncompressed PNG: at the
    /// scale the first resize asks for (a vector is drawn at the size
    /// wanted, larger too, as imgproxy draws it), cut down to the pixel
    /// limit (imgproxy's guard: a huge declared size is drawn smaller,
    /// not refused).
    func rendered(_ svg: Data, operations: [ImageOperation]) throws(DarkroomError) -> Data {
        try withRawBytes(of: svg) { raw throws(DarkroomError) -> Data in
            let header: VImage
            do throws(VipsError) {
                header = try VImage.loadSVG(raw, scale: 1)
            } catch {
                throw DarkroomError(.corruptImage, "the SVG could not be read by its renderer", underlying: error.message)
            }
            let scale = renderScale(width: header.width, height: header.height, operations: operations)
            var image = header
            if scale != 1 {
                do throws(VipsError) {
                    image = try VImage.loadSVG(raw, scale: scale)
                } catch {
                    throw DarkroomError(.corruptImage, "the SVG could not be read by its renderer", underlying: error.message)
                }
            }
            try reserveMemory(MemoryCost.product(image.width, image.height, 4, 2),
                              for: "the SVG drawn at \(image.width) x \(image.height)")
            let bytes = try computingPixels(of: image, sourceFormat: .svg) { () throws(VipsError) in try image.storedPNG() }
            return Data(bytes)
        }
    }

    static let maxSVGSide = 10_000_000

    /// The scale to draw at: the first resize's, enlarging allowed, so
    /// that its box is met; then no more pixels than the source limit.
    func renderScale(width: Int, height: Int, operations: [ImageOperation]) -> Double {
        guard width > 0, height > 0 else { return 1 }
        var scale = 1.0
        if case .resize(var resize)? = operations.first, resize.gravity.isValid {
            resize.enlarge = true
            let geometry = resize.geometry(sourceWidth: width, sourceHeight: height, maxResultDimension: options.limits.maxResultDimension)
            // Half a pixel more: librsvg's size rounds down, and the resize
            // then takes the drawing to its exact size.
            scale = max((Double(geometry.scaledWidth) + 0.5) / Double(width), (Double(geometry.scaledHeight) + 0.5) / Double(height))
            if !scale.isFinite || scale <= 0 { scale = 1 }
        }
        let pixels = Double(width) * Double(height) * scale * scale
        let limit = Double(options.limits.maxSourcePixels)
        if pixels > limit { scale *= (limit / pixels).squareRoot() }
        // libvips' range; past its floor the memory check refuses the drawing.
        return min(100_000, max(0.001, scale))
    }

    /// The sanitiser's refusal as the library's error.
    static func error(for failure: SVGSanitizer.Failure) -> DarkroomError {
        switch failure.kind {
        case .tooLarge: DarkroomError(.tooManyBytes, failure.reason)
        case .tooDeep: DarkroomError(.tooComplex, failure.reason)
        case .notSVG: DarkroomError(.notAnImage, failure.reason)
        case .dtd, .unsupportedEncoding, .notWellFormed: DarkroomError(.corruptImage, failure.reason)
        }
    }
}
