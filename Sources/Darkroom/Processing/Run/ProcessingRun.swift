import DarkroomImaging
import Foundation
import NIOCore
import Tracing

/// One run of the processor over one input: header, limits, shrink-on-load,
/// steps, encode. Every libvips image lives and dies inside ``run()``.
struct ProcessingRun {
    let data: Data
    let options: ProcessingOptions
    let killSwitch: KillSwitch
    /// Whether a JPEG, PNG or WebP made smaller may skip libvips (see
    /// ``thumbnail(_:format:)``); off to compare the two.
    var usesThumbnail = true
    /// The thumbnail path's resampling kernels (each gives the same bytes;
    /// tests run them against each other).
    var kernels: Thumbnail.Kernels = .best
    /// What the run holds in memory, as it is planned.
    let ledger = MemoryLedger()
    /// The trace the run's stages are spans of, when the request is traced.
    var trace: InstrumentationContext?

    /// Runs, with the kill switch pulled when ``ImageLimits/maxProcessingTime``
    /// is up: libvips stops at its next tile, the JPEG path at its next rows.
    func run() throws(DarkroomError) -> ProcessedImage {
        var image = try withDeadline { () throws(DarkroomError) in try runUntimed() }
        // The source as it came: a drawn source's run sees only its drawing.
        image.source.bytes = data.count
        return image
    }

    /// `body`, with the kill switch pulled when ``ImageLimits/maxProcessingTime``
    /// is up: images and `/info` alike.
    func withDeadline<T>(_ body: () throws(DarkroomError) -> T) throws(DarkroomError) -> T {
        let limit = options.limits.maxProcessingTime
        let timer = DispatchWorkItem { [killSwitch] in killSwitch.expire() }
        DispatchQueue.global().asyncAfter(deadline: .now() + max(0, limit.seconds), execute: timer)
        defer { timer.cancel() }
        do {
            return try body()
        } catch where error.kind == .cancelled && killSwitch.hasExpired {
            throw DarkroomError(.processingTimedOut, "processing took longer than the limit of \(limit.seconds.formatted()) s and was stopped")
        }
    }

    func runUntimed() throws(DarkroomError) -> ProcessedImage {
        try Self.startLibvips()
        let format = try checkedFormat()
        // A video's is not checked, as imgproxy Pro does not.
        if format != .video, let expected = options.sourceHashsum, Hashsum.hex(of: data, expected.kind) != expected.hex {
            throw DarkroomError(.notAnImage, "the source's \(expected.kind.rawValue) hashsum is not the one the URL gives")
        }
        try killSwitch.check()
        // Drawn by a child process, never read here.
        if let drawn = Self.drawnSource(for: format) { return try drawn.run(self) }
        // The bytes stay valid, and libvips reads them in place, until the
        // last image made from them is released at the end of this closure.
        return try withRawBytes(of: data) { raw throws(DarkroomError) in
            if !options.output.skips(format) {
                // A JPEG's scans and coefficients, from its markers, before
                // either engine reads a scan.
                _ = try checkedJPEGStructure(raw, format: format)
                // An AVIF's item graph, before either engine's decoder reads it.
                try checkHEIFStructure(raw, format: format)
                if usesThumbnail, let thumbnail = try thumbnail(raw, format: format) { return thumbnail }
            }
            return try run(raw, format: format)
        }
    }

    static let svgFromPixels = "SVG is answered only for SVG sources: Darkroom does not draw pixels as vectors"

    /// Why a JPEG XL image is refused where ``ImageLimits/jpegXL`` is off.
    static func jpegXLOff(_ what: String) -> String {
        "JPEG XL is off here, so the image cannot be \(what): libvips marks its JPEG XL codec untrusted (darkroom serve --jpeg-xl turns it on)"
    }

    /// Lets libvips' JPEG XL codec run; only ever for a run that allows it.
    static func startJPEGXL() throws(DarkroomError) {
        try startLibvips()
        VipsRuntime.allowJPEGXL()
    }

    static func startLibvips() throws(DarkroomError) {
        LibvipsLog.installed
        do {
            try VipsRuntime.start()
        } catch {
            throw DarkroomError(.processingFailed, "libvips could not start", underlying: error.message)
        }
    }

    /// Checks size and magic bytes before libvips sees anything.
    func checkedFormat() throws(DarkroomError) -> ImageFormat {
        let limits = options.limits
        if data.count > limits.maxSourceBytes {
            throw DarkroomError(.tooManyBytes, "the image is \(data.count) bytes, over the limit of \(limits.maxSourceBytes) bytes")
        }
        switch ImageFormat.sniff(data) {
        case .empty:
            throw DarkroomError(.emptyInput, "the input is empty (0 bytes)")
        case .notAnImage(let what):
            throw DarkroomError(.notAnImage, "the input is not an image: it looks like \(what)")
        case .image(.jxl) where !limits.jpegXL:
            throw DarkroomError(.notAnImage, Self.jpegXLOff("read"))
        case .image(let format):
            if format == .jxl { try Self.startJPEGXL() }
            return format
        }
    }

    /// The libvips run, as three spans when traced. libvips computes pixels
    /// only when they are written: "decode" opens the source and plans its
    /// pixels, "process" builds the steps, and "encode" is where both run.
    private func run(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) -> ProcessedImage {
        // 1. The header only: no pixels are decoded yet.
        var header = try load(raw, format: format, shrink: 1)
        // An animation answered as one counts the pixels of every frame.
        let animation = options.output.skips(format) ? nil : animation(of: header, format: format)
        // A still answer of other frames or pages than the first: they are
        // the source from here on.
        let selected = animation == nil && !options.output.skips(format) ? try selectedPages(of: header, format: format) : nil
        if let selected {
            let stack = try load(raw, format: format, shrink: 1, page: selected.first, pages: selected.count)
            header = try vips("stacking the pages") { try stack.asOnePage() }
        }
        let frames = animation?.frames ?? 1
        let pixels = header.width.multipliedReportingOverflow(by: header.height)
        let allPixels = pixels.partialValue.multipliedReportingOverflow(by: frames)
        if frames > 1, let framePixels = options.limits.maxAnimationFramePixels, framePixels > 0 {
            // Frame by frame, as imgproxy's max_animation_frame_resolution.
            if pixels.overflow || pixels.partialValue > framePixels {
                throw DarkroomError(.tooManyPixels, "each frame of the animation is \(header.width) x \(header.height) pixels, over the limit of \(framePixels) pixels a frame")
            }
        } else if pixels.overflow || allPixels.overflow || allPixels.partialValue > options.limits.maxSourcePixels {
            // The frames counted are those that would be made, up to the limit.
            let total = header.pageCount
            let frameCount = frames > 1 ? " in each of \(frames) frames" + (total > frames ? " (the first \(frames) of \(total))" : "") : ""
            throw DarkroomError(.tooManyPixels, "the image is \(header.width) x \(header.height) pixels\(frameCount), over the limit of \(options.limits.maxSourcePixels) pixels")
        }
        // Grey, RGB or CMYK, with or without alpha: any other number of
        // channels (a TIFF may declare 64) is not a photo any step reads.
        guard (1...5).contains(header.bands) else {
            throw DarkroomError(.notAnImage, "the image has \(header.bands) channels a pixel; Darkroom reads 1 to 5 (grey, RGB or CMYK, with or without alpha)")
        }
        let source = ProcessedImage.SourceInfo(format: format, width: header.width, height: header.height)
        if options.output.skips(format) {
            // As it came, once its header and limits are checked: no step, no encode.
            return ProcessedImage(bytes: ByteBuffer(bytes: raw), format: format, width: header.width, height: header.height, source: source)
        }
        if let animation {
            try checkWholeDecode(of: header, format: format, shrink: 1, randomAccess: true, frames: animation.frames)
            return try runAnimation(raw, format: format, frames: animation.frames, outputFormat: animation.format, source: source)
        }
        let orientation = options.autoRotate ? self.orientation(of: raw, format: format, header: header) : 1
        let swaps = orientation >= 5
        let oriented = swaps ? (width: header.height, height: header.width) : (width: header.width, height: header.height)

        // 2. Shrink on load when the first step is a downscale. An image to
        //    be turned or flipped upside down, by its EXIF orientation or by
        //    a step, is decoded whole (random access): those read its rows
        //    out of order, which a source decoded in one pass cannot serve.
        let plan = ShrinkOnLoad.plan(operations: options.operations, format: format, width: oriented.width, height: oriented.height)
        let rotates = orientation != 1
        let randomAccess = rotates || options.operations.contains { $0.readsRowsOutOfOrder }
        var image = try Traces.span("darkroom.decode", under: trace) { () throws(DarkroomError) in
            try checkWholeDecode(of: header, format: format, shrink: plan.factor, randomAccess: randomAccess)
            var image = header
            if plan.factor > 1 || randomAccess {
                let loaded = try load(raw, format: format, shrink: plan.factor, randomAccess: randomAccess, page: selected?.first ?? 0, pages: selected?.count ?? 1)
                image = selected == nil ? loaded : try vips("stacking the pages") { try loaded.asOnePage() }
            }
            try killSwitch.check()

            // 3. Pixels to 8-bit sRGB (16 where kept), upright.
            image = try keepsHighBitDepth(header, format: format) ? inSRGB16(image) : inSRGB(image)
            if rotates {
                image = try vips("rotating by EXIF orientation") { try image.autoRotated(orientation: orientation) }
            }
            return image
        }

        // 4. The steps, in order; the first resize is measured against the
        //    source's size, so shrink-on-load does not change the result's size.
        image = try Traces.span("darkroom.process", under: trace) { () throws(DarkroomError) in
            try applyingSteps(to: image, firstReference: plan.factor > 1 ? oriented : nil, sourceOrientation: orientation)
        }
        try killSwitch.check()

        // 5. Encode: the long call, where libvips computes every pixel.
        return try Traces.span("darkroom.encode", under: trace) { () throws(DarkroomError) in
            try written(image, sourceFormat: format, source: source)
        }
    }

    /// The image written in the answer's format: the best of several,
    /// the one asked, or the source's. The libvips run and the thumbnail
    /// path's pixels both end here.
    func written(_ image: VImage, sourceFormat format: ImageFormat, source: ProcessedImage.SourceInfo) throws(DarkroomError) -> ProcessedImage {
        var image = image
        if options.output.best, options.output.format == nil {
            return try encodeBest(image, sourceFormat: format, source: source)
        }
        let outputFormat = try outputFormat(source: format, hasAlpha: image.hasAlpha)
        if outputFormat == .ico, max(image.width, image.height) > VImage.maxIconSide {
            // As imgproxy: an icon is made to fit its format's limit.
            let scale = Double(VImage.maxIconSide) / Double(max(image.width, image.height))
            image = try vips("fitting the icon in \(VImage.maxIconSide) pixels") { try image.resized(horizontal: scale, vertical: scale) }
        }
        if outputFormat == .jpeg {
            // JPEG keeps no alpha: transparency shows white, as imgproxy
            // shows it (libvips alone would flatten onto black).
            image = try flattened(image, onto: .white)
        }
        let bytes = try encode(image, as: outputFormat, sourceFormat: format)
        try killSwitch.check()
        return ProcessedImage(bytes: bytes, format: outputFormat, width: image.width, height: image.height, source: source)
    }

    /// The steps, in order, each checked against the result limits.
    /// `firstReference` is the size the first step measures against when
    /// it is not the image's own (the source's, before shrink-on-load).
    func applyingSteps(to image: VImage, firstReference: (width: Int, height: Int)?, sourceOrientation: Int = 1) throws(DarkroomError) -> VImage {
        var image = image
        var layout = StepLayout()
        layout.sourceOrientation = sourceOrientation
        let operations = options.operations
        for (index, operation) in operations.enumerated() {
            try killSwitch.check()
            let reference = index == 0 ? firstReference ?? (image.width, image.height) : (image.width, image.height)
            if case .resize = operation {
                // The frame a resize measures (its extend and padding count
                // towards the result limit): the next one before another resize.
                layout.frame = operations[(index + 1)...].prefix { if case .resize = $0 { false } else { true } }
                    .lazy.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }.first
            }
            image = try apply(operation, to: image, referenceSize: reference, layout: &layout)
            // Only a step that adds pixels can pass the limit; a turn or a
            // cut of a source larger than it is the resize's to scale down.
            if operation.addsPixels { try checkResultSize(width: image.width, height: image.height) }
        }
        return image
    }

    /// Refuses a step's image, and so the result, over
    /// ``ImageLimits/maxResultDimension`` on either side, before any of its
    /// pixels is computed.
    func checkResultSize(width: Int, height: Int) throws(DarkroomError) {
        let limit = options.limits.maxResultDimension
        if width > limit || height > limit {
            throw DarkroomError(.tooManyPixels, "the result would be \(width) x \(height) pixels, over the limit of \(limit) on each side")
        }
    }

    func load(_ raw: UnsafeRawBufferPointer, format: ImageFormat, shrink: Int, randomAccess: Bool = false, page: Int = 0, pages: Int = 1) throws(DarkroomError) -> VImage {
        // Every load, the header's too: no libheif call sees a file the
        // structure check refuses (the check reads a few boxes).
        try checkStructure(raw, format: format)
        do {
            return try VImage.load(raw, loader: format.loader, shrink: shrink, randomAccess: randomAccess,
                                   page: page, pages: pages, thumbnail: options.enforceThumbnail)
        } catch {
            throw DarkroomError(.corruptImage, "the \(format.rawValue.uppercased()) image could not be read", underlying: error.message)
        }
    }

    /// The frames or pages ``ProcessingOptions/pages`` asks of a GIF, WebP
    /// or TIFF source, within those it has; nil for the first alone (and
    /// for other formats, which have one).
    func selectedPages(of header: VImage, format: ImageFormat) throws(DarkroomError) -> (first: Int, count: Int)? {
        let asked = options.pages
        guard asked.first >= 0, (1...PageSelection.maxCount).contains(asked.count) else {
            throw .invalidOption("pages \(asked.first) + \(asked.count): the first is 0 or more, the count 1 to \(PageSelection.maxCount)")
        }
        guard [.gif, .webp, .tiff].contains(format), asked.first > 0 || asked.count > 1 else { return nil }
        let total = max(1, header.pageCount)
        guard asked.first < total else {
            throw .invalidOption("page \(asked.first) was asked of a source with \(total) page\(total == 1 ? "" : "s") (counted from 0)")
        }
        let count = min(asked.count, total - asked.first)
        return asked.first == 0 && count == 1 ? nil : (asked.first, count)
    }

    private func outputFormat(source: ImageFormat, hasAlpha: Bool) throws(DarkroomError) -> ImageFormat {
        if let format = options.output.format {
            if format == .svg { throw DarkroomError(.cannotEncode, Self.svgFromPixels) }
            guard format.canEncode else {
                throw DarkroomError(.cannotEncode, "Darkroom cannot write \(format.rawValue.uppercased()); it writes \(ImageFormat.encodable.map(\.rawValue).joined(separator: ", "))")
            }
            if format == .jxl {
                guard options.limits.jpegXL else { throw DarkroomError(.cannotEncode, Self.jpegXLOff("written")) }
                try Self.startJPEGXL()
            }
            return format
        }
        return options.output.formatKeeping(source, hasAlpha: hasAlpha)
    }

    /// - Parameter lossless: WebP written lossless (for the `best` format).
    func encode(_ image: VImage, as format: ImageFormat, sourceFormat: ImageFormat, lossless: Bool = false) throws(DarkroomError) -> ByteBuffer {
        var quality = options.output.quality(for: format)
        guard StepRanges.quality.contains(quality) else {
            throw .invalidOption("quality \(quality) is outside \(StepRanges.text(StepRanges.quality))")
        }
        func encoder(_ quality: Int) throws(DarkroomError) -> VImage.Encoder {
            let settings = options.output.encoder
            return switch format {
            case .jpeg: .jpeg(quality: quality, progressive: options.output.progressive, tuning: settings.jpegTuning(progressive: options.output.progressive).applicable)
            case .png: settings.pngTuning.map(VImage.Encoder.pngTuned) ?? .png
            case .webp: lossless ? .webpLossless : .webp(quality: quality, tuning: settings.webpTuning)
            case .avif: .avif(quality: quality, tuning: settings.avifTuning)
            case .heic: .heic(quality: quality)
            case .gif: .gif
            case .tiff: .tiff
            case .jxl: .jxl(quality: quality, effort: settings.jxlEffort)
            case .bmp: .bmp
            case .ico: .ico
            case .svg: throw DarkroomError(.cannotEncode, Self.svgFromPixels)
            case .pdf, .video: throw DarkroomError(.cannotEncode, "Darkroom does not write \(format == .pdf ? "PDF" : "video")")
            }
        }
        let output = options.output
        let (image, strip) = try preparedForSaving(image, as: format)
        // What the encoder holds, before any pixel is computed: the step
        // that can take the most memory (a 1 x 1 source extended to the
        // result limit costs nothing until it is written).
        let frames = max(1, image.height / max(1, image.pageHeight))
        let frameHeight = image.height / frames
        // An encoder that cannot be stopped mid-picture writes in a child,
        // which holds its working set under its own limit; here, only the
        // pixels handed to it and the answer read back.
        let choosesQuality = options.output.autoquality != nil && options.output.maxBytes == nil && !lossless && Autoquality.formats.contains(format)
        let fitsBytes = options.output.maxBytes != nil && OutputOptions.byteLimitedFormats.contains(format)
        if !choosesQuality, !fitsBytes, writesInChild(image, as: format) {
            return try writtenOnce(image, with: try encoder(quality), as: format, strip: strip, sourceFormat: sourceFormat)
        }
        // Twice the working set for 16-bit pixels.
        try reserveMemory(MemoryCost.product(MemoryCost.encode(format, width: image.width, height: frameHeight, frames: frames, progressive: output.progressive),
                                             image.bytesPerSample),
                          for: "writing the \(image.width) x \(frameHeight)\(frames > 1 ? " x \(frames) frames" : "") image as \(format.rawValue.uppercased())")
        if let autoquality = options.output.autoquality, options.output.maxBytes == nil, !lossless, Autoquality.formats.contains(format) {
            return try encodeChoosingQuality(image, as: format, sourceFormat: sourceFormat, autoquality: autoquality, strip: strip, encoder: encoder)
        }
        guard let maxBytes = options.output.maxBytes, OutputOptions.byteLimitedFormats.contains(format) else {
            let encoder = try encoder(quality)
            return try writtenOnce(image, with: encoder, as: format, strip: strip, sourceFormat: sourceFormat)
        }
        // Encoded more than once: the pixels are computed once, into memory.
        guard maxBytes > 0 else { throw .invalidOption("the byte limit \(maxBytes) is not above 0") }
        try reserveMemory(MemoryCost.product(image.width, image.height, image.bands, image.bytesPerSample),
                          for: "the \(image.width) x \(image.height) image in memory, to be written more than once")
        let pixels = try computingPixels(of: image, sourceFormat: sourceFormat) { pass throws(VipsError) in try image.inMemory(pass) }
        while true {
            try killSwitch.check()
            let encoder = try encoder(quality)
            let bytes = try writtenOnce(pixels, with: encoder, as: format, strip: strip, sourceFormat: sourceFormat)
            if bytes.readableBytes <= maxBytes || quality <= 10 { return bytes }
            // Down in steps by how far over the limit it is; always down.
            let over = Double(bytes.readableBytes) / Double(maxBytes)
            let next = Int((Double(quality) * (over > 3 ? 0.25 : over > 1.5 ? 0.5 : 0.75)).rounded())
            quality = max(1, min(quality - 1, next))
        }
    }

    /// Runs a call that computes the pixels of the whole chain (the encode,
    /// or a step that renders into memory), with the kill switch armed.
    ///
    /// The header was read and every step was built without error, so a
    /// failure now is the source failing to decode as its pixels are
    /// pulled: damaged or cut short; or the switch pulled. libvips' text is
    /// kept as detail only; its error buffer is shared by every thread.
    func computingPixels<T>(of image: VImage, sourceFormat: ImageFormat? = nil, _ body: (PixelPass) throws(VipsError) -> T) throws(DarkroomError) -> T {
        do {
            return try killSwitch.vips.armed(image, body)
        } catch {
            if killSwitch.isPulled { throw .cancelled }
            // A step that read the source's rows out of order is the plan's
            // fault, not the file's: never blamed on the image.
            if error.message.contains("out of order read") {
                throw DarkroomError(.processingFailed, "a step read the source's rows out of the order they are decoded in", underlying: error.message)
            }
            var format = sourceFormat
            if format == nil, case .image(let sniffed) = ImageFormat.sniff(data) { format = sniffed }
            throw DarkroomError(.corruptImage, "the \(format?.rawValue.uppercased() ?? "source") image is damaged or truncated: its pixels could not be decoded",
                                underlying: error.message)
        }
    }

    /// The image as 8-bit sRGB. A source whose colours libvips cannot
    /// convert (an interpretation or a profile it cannot read) is the
    /// input's fault: a 422 that says so, not a failure of the server.
    func inSRGB(_ image: VImage) throws(DarkroomError) -> VImage {
        do {
            return try image.srgb8(transformingProfile: options.output.stripColourProfile)
        } catch {
            throw DarkroomError(.corruptImage, "the image's colours could not be converted to sRGB", underlying: error.message)
        }
    }

    /// The image as 16-bit RGB (or grey), for ``OutputOptions/preserveHDR``.
    func inSRGB16(_ image: VImage) throws(DarkroomError) -> VImage {
        do {
            return try image.srgb16(transformingProfile: options.output.stripColourProfile)
        } catch {
            throw DarkroomError(.corruptImage, "the image's colours could not be converted to 16-bit RGB", underlying: error.message)
        }
    }

    /// Whether the run keeps more than 8 bits: asked, the source has them,
    /// the answer's format carries them, and every step works on them.
    func keepsHighBitDepth(_ header: VImage, format: ImageFormat) -> Bool {
        let output = options.output
        guard output.preserveHDR, header.bytesPerSample > 1 else { return false }
        let answer = output.format ?? output.formatKeeping(format, hasAlpha: header.hasAlpha)
        guard OutputOptions.highBitDepthFormats.contains(answer) else { return false }
        return options.operations.allSatisfy { operation in
            switch operation {
            case .resize, .crop, .cropPlaced, .rotate, .flip, .blur, .sharpen: true
            default: false
            }
        }
    }

    /// Runs a libvips step, giving its failure a sentence.
    func vips<T>(_ what: String, _ body: () throws -> T) throws(DarkroomError) -> T {
        do {
            return try body()
        } catch {
            throw DarkroomError(.processingFailed, "\(what) failed", underlying: (error as? VipsError)?.message ?? "\(error)")
        }
    }
}

extension ImageFormat {
    var loader: VImage.Loader {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif, .heic: .heif
        case .tiff: .tiff
        case .gif: .gif
        case .jxl: .jxl
        // Never a source: sniffing names neither, and PNG's loader refuses
        // their bytes.
        case .bmp, .ico: .png
        // Rendered to PNG before any load (``ProcessingRun/svgRun()``,
        // ``ProcessingRun/pdfRun()``).
        case .svg, .pdf, .video: .png
        }
    }
}
