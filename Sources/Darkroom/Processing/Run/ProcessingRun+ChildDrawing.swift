import DarkroomImaging
import Foundation
import NIOCore

/// Sources drawn by a child process (PDF pages, video frames, SVG): the
/// child run under the run's limits, and the run over what it drew.
extension ProcessingRun {
    /// A run with these options (or `options`) over `png`, a page, frame or
    /// drawing a child made: bounded by the pixel limit, its bytes not the
    /// source's, one page.
    func runOfDrawing(_ png: Data, options given: ProcessingOptions? = nil) -> ProcessingRun {
        var drawing = given ?? options
        drawing.limits.maxSourceBytes = .max
        drawing.pages = PageSelection()
        var run = ProcessingRun(data: png, options: drawing, killSwitch: killSwitch)
        run.usesThumbnail = usesThumbnail
        run.kernels = kernels
        run.trace = trace
        return run
    }

    /// Runs a child that draws a source (a PDF page, a video frame) under
    /// the run's deadline and kill switch, reading back at most the
    /// drawable pixels' uncompressed PNG: its exit status and output, or
    /// the error of a child ended by a limit (its own memory or CPU, or the
    /// deadline).
    /// `arguments` gets the memory limit the child runs under (its
    /// configured most, `maxMemory`, or less, as the request's budget
    /// allows: ``ChildMemory``) and the most pixels it may draw (the pixel
    /// limit, or less where the budget cannot hold its PNG beside the
    /// child: ``ChildMemory/drawablePixels(limit:left:)``). The child's
    /// resident base, its drawing and its working share are held in the
    /// budget while it runs.
    /// `drawing` false: the child writes text (a description), at most 1 MiB.
    /// `input`: what the child reads (the source's bytes unless given);
    /// `maxOutput`: the most it may write, held by the caller's budget
    /// already (a drawing's PNG at the drawable pixels unless given).
    func childDrawing(_ command: [String], arguments: (_ maxMemory: Int, _ maxPixels: Int) -> [String], maxMemory: Int, what: String,
                      drawing: Bool = true, input: Data? = nil, maxOutput given: Int? = nil) throws(DarkroomError) -> (status: Int32, output: Data) {
        let limits = options.limits
        // Checked here for every child: a child maps its base before it
        // reads a byte.
        guard ChildMemory.range.contains(maxMemory), !command.isEmpty else {
            throw .invalidOption("the child for \(what) may map \(maxMemory) bytes, outside \(ChildMemory.range)")
        }
        let seconds = max(1, Int(limits.maxProcessingTime.components.seconds))
        try reserveMemory(ChildMemory.residentBase, for: "the child that draws \(what): the \(ChildMemory.residentBase >> 20) MiB it holds before it works")
        defer { ledger.release(ChildMemory.residentBase) }
        let maxPixels = drawing && given == nil
            ? ChildMemory.drawablePixels(limit: max(1, limits.maxSourcePixels), left: limits.maxDecodeMemory - ledger.held) : max(1, limits.maxSourcePixels)
        let maxOutput = given ?? (drawing ? ChildMemory.pngBytes(maxPixels) : 1 << 20)
        if drawing, given == nil { try reserveMemory(maxOutput, for: "\(what) drawn at up to \(maxPixels) pixels") }
        let granted = ChildMemory.limit(most: maxMemory, left: limits.maxDecodeMemory - ledger.held)
        let share = max(granted - ChildMemory.base, ChildMemory.minimumShare)
        try reserveMemory(share, for: "the child that draws \(what), beyond the \(ChildMemory.base >> 20) MiB every child maps")
        defer { ledger.release(share) }
        let finished = try ChildProcess.run(command + arguments(granted, maxPixels), input: input ?? data, maxOutput: maxOutput,
                                            deadline: .now + limits.maxProcessingTime, killSwitch: killSwitch)
        if killSwitch.isPulled {
            throw killSwitch.hasExpired ? DarkroomError(.processingTimedOut, "drawing \(what) took longer than the limit of \(seconds) s and was stopped") : .cancelled
        }
        if finished.outputOverflowed {
            throw DarkroomError(.tooManyPixels, "\(what) drawn was larger than \(ChildMemory.pixelLimitSaid(maxPixels, limit: limits.maxSourcePixels))")
        }
        // Its memory or CPU limit (a crash, or libvips' own "out of
        // memory" at the address-space limit), or a crash in the parser:
        // the child's end only.
        let said = String(decoding: finished.output.prefix(2000), as: UTF8.self)
        let ranOutOfMemory = finished.status != 0 && (said.contains("out of memory") || said.contains("Cannot allocate memory"))
        guard !finished.signalled, !ranOutOfMemory else {
            throw DarkroomError(.tooComplex, "\(what) could not be drawn within the limits of \(granted >> 20) MiB and \(seconds) s of processing")
        }
        // Its own arguments or limits refused (64 is a usage error, 6 a
        // limit it could not set): the server's setup, not the source.
        guard finished.status < 6 else {
            throw DarkroomError(.processingFailed, "the child that draws \(what) could not start its work (exit status \(finished.status))")
        }
        return (finished.status, finished.output)
    }

    /// Whether `image` is written as `format` by the encoding child: an
    /// encoder that cannot be stopped, at a size where its worst picture
    /// takes more than a moment (``EncodingChild/writes(_:pixels:)``, every
    /// frame of an animation counted); its pixels (16-bit ones too, kept
    /// by `preserve_hdr`) go with the metadata and frame timing it keeps.
    func writesInChild(_ image: VImage, as format: ImageFormat) -> Bool {
        options.limits.encodingChild != nil && EncodingChild.writes(format, pixels: MemoryCost.product(image.width, image.height))
    }

    /// One encode of `image`: in the encoding child where
    /// ``writesInChild(_:as:)`` says, else here under the kill switch.
    func writtenOnce(_ image: VImage, with encoder: VImage.Encoder, as format: ImageFormat, strip: Bool,
                     sourceFormat: ImageFormat) throws(DarkroomError) -> ByteBuffer {
        if let child = options.limits.encodingChild, writesInChild(image, as: format) {
            return try encodedInChild(image, encoder: encoder, strip: strip, name: format.rawValue.uppercased(), child: child, sourceFormat: sourceFormat)
        }
        return try computingPixels(of: image, sourceFormat: sourceFormat) { pass throws(VipsError) in
            try image.encoded(encoder, strip: strip, through: pass) { ByteBuffer(bytes: $0) }
        }
    }

    /// `image` written with `encoder` by the encoding child (see
    /// ``EncodingChild``): its pixels computed here, under the kill switch,
    /// into an uncompressed PNG the child reads, with the metadata the
    /// answer keeps (`strip` false); the answer read back.
    func encodedInChild(_ image: VImage, encoder: VImage.Encoder, strip: Bool, name: String, child: EncodingChild,
                        sourceFormat: ImageFormat) throws(DarkroomError) -> ByteBuffer {
        // The pixels handed over, and the answer read back (never larger
        // than they are), both held here.
        let pixels = MemoryCost.product(image.width, image.height, image.bands, image.bytesPerSample)
        // Given back when the answer is here: a byte limit writes again.
        try reserveMemory(MemoryCost.product(pixels, 2), for: "writing the \(image.width) x \(image.height) image as \(name) in the encoder's child")
        defer { ledger.release(MemoryCost.product(pixels, 2)) }
        let png = try computingPixels(of: image, sourceFormat: sourceFormat) { pass throws(VipsError) in try image.storedPNG(pass, strip: strip) }
        let copyright = strip ? nil : image.keptCopyrightAlone
        // An animation's frames go as one tall PNG; their height, delays
        // and loop count as an argument.
        let frames = image.frameTiming
        let seconds = max(1, Int(options.limits.maxProcessingTime.components.seconds))
        // The encoder's threads share the child's CPU limit: a core's
        // seconds each; the deadline bounds the time it takes.
        let cpuSeconds = min(3600, seconds * max(1, ProcessInfo.processInfo.activeProcessorCount))
        let (status, output) = try childDrawing(child.command, arguments: { memory, _ in
            ImageEncoding.arguments(encoder: encoder, keepsMetadata: !strip, copyright: copyright, frames: frames, maxMemory: memory, maxSeconds: cpuSeconds)
        }, maxMemory: child.maxMemory, what: "the \(name) answer",
                                                input: Data(png), maxOutput: png.count + (1 << 20))
        guard status == ImageEncoding.Outcome.written(Data()).status else {
            throw DarkroomError(.cannotEncode, "the \(name) encoder could not write the answer", underlying: String(decoding: output.prefix(500), as: UTF8.self))
        }
        // An encoder that failed inside (libaom short of memory under the
        // child's limit) may still end cleanly, with a file that holds no
        // picture: the answer must read back at the image's (first frame's) size.
        guard Self.readsBack(output, width: image.width, height: frames?.pageHeight ?? image.height) else {
            throw DarkroomError(.tooMuchMemory, "the \(name) encoder could not write the answer within the memory this request may use (its file holds no picture)")
        }
        return ByteBuffer(bytes: output)
    }

    /// Whether `data` is an image whose header reads as `width` x `height`.
    static func readsBack(_ data: Data, width: Int, height: Int) -> Bool {
        guard case .image(let format) = ImageFormat.sniff(data) else { return false }
        let size = try? withRawBytes(of: data) { raw throws(VipsError) in
            let header = try VImage.load(raw, loader: format.loader)
            return (header.width, header.height)
        }
        return size.map { $0 == (width, height) } ?? false
    }
}
