import DarkroomImaging
import Foundation
import NIOCore

/// SVG sources: sanitised by Darkroom's own XML reader before anything
/// else sees them, then answered as SVG or rendered by librsvg into pixels
/// that run through the usual steps.
enum SVGSource: DrawnSource {
    static let format = ImageFormat.svg
    static func run(_ run: ProcessingRun) throws(DarkroomError) -> ProcessedImage { try run.svgRun() }
    static func inspect(_ run: ProcessingRun, includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        try run.svgInspect(includeGPS: includeGPS, asked: asked)
    }
}

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
        // The URL's CSS goes in first, and is sanitised with the rest.
        let data = options.svgStyle.flatMap { SVGStyle.prepending($0, to: self.data) } ?? self.data
        guard options.limits.sanitizesSVG else { return SVGSanitizer.Sanitized(data: data, width: 0, height: 0) }
        do {
            return try SVGSanitizer.sanitizedDocument(data, maxBytes: options.limits.maxSourceBytes, embedded: .init(options.limits))
        } catch {
            throw Self.error(for: error)
        }
    }

    /// A run with `options` over the document drawn into pixels (a PNG),
    /// by the drawing child, at the size their first resize asks.
    func drawingRun(of document: SVGSanitizer.Sanitized, options: ProcessingOptions) throws(DarkroomError) -> ProcessingRun {
        // libvips draws at most 10,000,000 pixels a side; a document that
        // says more would be drawn wrong (at 1 x 1), not smaller.
        guard document.width <= Self.maxSVGSide, document.height <= Self.maxSVGSide else {
            throw DarkroomError(.tooManyPixels, "the SVG says it is \(document.width) x \(document.height) pixels; at most \(Self.maxSVGSide) a side can be drawn")
        }
        let plan = VectorPlan(options.operations)
        let (png, scale) = try drawnSVG(document.data, plan: plan)
        var options = options
        if plan != nil { options.operations = VectorPlan.steps(options.operations, drawnAt: scale) }
        return runOfDrawing(png, options: options)
    }

    /// The document drawn by the child (see ``SVGDrawing``), as an
    /// uncompressed PNG, with the scale it was drawn at: the scale the
    /// first resize asks for (``VectorPlan``: a vector is drawn at the size
    /// wanted, larger too, as imgproxy draws it), cut down to the pixel
    /// limit (imgproxy's guard: a huge declared size is drawn smaller, not
    /// refused).
    func drawnSVG(_ svg: Data, plan: VectorPlan?) throws(DarkroomError) -> (png: Data, scale: Double) {
        let limits = options.limits
        guard let drawing = limits.svgDrawing else {
            throw DarkroomError(.notAnImage, "SVG sources are not drawn here: librsvg, which libvips marks untrusted, runs only in a drawing child (darkroom draws SVG in one unless started with --no-svg-render); asked without a format, an SVG is answered as SVG")
        }
        let seconds = max(1, Int(limits.maxProcessingTime.components.seconds))
        var drawable = limits.maxSourcePixels
        let (status, output) = try childDrawing(drawing.command, arguments: { memory, pixels in
            drawable = pixels
            return SVGDocumentDrawing.arguments(plan: plan, maxResultDimension: limits.maxResultDimension,
                                                maxPixels: pixels, maxMemory: memory, maxSeconds: seconds)
        }, maxMemory: drawing.maxMemory, what: "the SVG", input: svg)
        switch status {
        case SVGDocumentDrawing.Outcome.drawing(Data()).status:
            guard let drawing = VectorDrawingOutput.read(output) else {
                throw DarkroomError(.corruptImage, "the SVG could not be read by its renderer", underlying: "the drawing child's answer is cut short")
            }
            return drawing
        case SVGDocumentDrawing.Outcome.tooLarge(width: 0, height: 0).status:
            throw DarkroomError(.tooManyPixels, "the SVG drawn at the smallest scale would be \(String(decoding: output, as: UTF8.self)) pixels, more than \(ChildMemory.pixelLimitSaid(drawable, limit: limits.maxSourcePixels))")
        default:
            throw DarkroomError(.corruptImage, "the SVG could not be read by its renderer", underlying: String(decoding: output, as: UTF8.self))
        }
    }

    static let maxSVGSide = 10_000_000

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
