import DarkroomImaging

/// What is checked of a source before either engine decodes it, and what
/// both engines read of it the same way.
extension ProcessingRun {
    /// A JPEG's structure from its markers, checked against the limits: its
    /// scans (libjpeg reads them all before the first row, so their number
    /// is what such a file costs) and the coefficient buffer libjpeg would
    /// hold for them. nil for any other format.
    func checkedJPEGStructure(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) -> SourceFacts.JPEGStructure? {
        guard format == .jpeg else { return nil }
        guard let structure = SourceFacts.jpegStructure(raw) else { return nil }
        let limits = options.limits
        if structure.isMultiScan, structure.scans > limits.maxJPEGScans {
            throw Self.tooManyScans(structure.scans, limit: limits.maxJPEGScans)
        }
        let kind = structure.isProgressive ? "progressive" : "multi-scan"
        try reserveMemory(structure.coefficientBytes, for: "the coefficients of the \(structure.width) x \(structure.height) \(kind) JPEG")
        return structure
    }

    /// A HEIF or AVIF image's item graph, checked before libheif reads it:
    /// a grid that refers to itself, grids inside grids, tiles that do not
    /// tile the canvas, and more tile decodes than
    /// ``ImageLimits/maxHEIFTiles`` are refused from the boxes alone.
    func checkHEIFStructure(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) {
        guard format == .avif || format == .heic, let structure = try HEIFStructure.read(raw) else { return }
        try structure.check(maxTiles: options.limits.maxHEIFTiles)
    }

    /// A container's structure, before any decoder reads it: a HEIF
    /// image's item graph, an animation's frame count.
    func checkStructure(_ raw: UnsafeRawBufferPointer, format: ImageFormat) throws(DarkroomError) {
        try checkHEIFStructure(raw, format: format)
        let limit = options.limits.maxSourceFrames
        if let frames = FrameCount.count(raw, format: format, limit: limit), frames > limit {
            throw DarkroomError(.tooComplex, "the \(format.rawValue.uppercased()) animation has more than \(limit) frames, over the limit of \(limit): libvips reads every frame's header before the first frame")
        }
    }

    static func tooManyScans(_ scans: Int, limit: Int) -> DarkroomError {
        DarkroomError(.tooManyScans, "the JPEG has \(scans) scans, over the limit of \(limit): libjpeg reads every scan of the whole image before the first row")
    }

    /// Adds what a decode, a step or the encoder will hold to the run's
    /// ledger, refusing it where the run would then hold more than its
    /// budget (``ImageLimits/maxDecodeMemory``).
    func reserveMemory(_ bytes: Int, for what: String) throws(DarkroomError) {
        try ledger.reserve(bytes, budget: options.limits.maxDecodeMemory, for: what)
    }

    /// Whether `bytes` more would fit the budget, without holding them: for
    /// a path that hands the run on to libvips when they would not.
    func checkDecodeMemory(_ bytes: Int, for what: String) throws(DarkroomError) {
        try ledger.check(bytes, budget: options.limits.maxDecodeMemory, for: what)
    }

    static func mebibytes(_ bytes: Int) -> String {
        bytes >= 10 << 20 ? "\(bytes >> 20) MiB" : "\((Double(bytes) / Double(1 << 20) * 10).rounded() / 10) MiB"
    }

    /// The EXIF orientation both engines go by: Darkroom's own reader for
    /// JPEG, PNG and WebP (the thumbnail path's), libvips' for the rest.
    func orientation(of raw: UnsafeRawBufferPointer, format: ImageFormat, header: VImage) -> Int {
        switch format {
        case .jpeg:
            return SourceFacts.jpegStructure(raw)?.orientation ?? header.orientation
        case .png, .webp:
            return Self.thumbnailFormat(format).flatMap { Thumbnail.header(raw, format: $0)?.orientation } ?? header.orientation
        default:
            return header.orientation
        }
    }

    /// What decoding holds whole in memory, besides a JPEG's coefficients:
    /// formats whose decoders give the whole image at once (WebP, HEIF,
    /// GIF, JPEG XL, an interlaced PNG), and any image read with random
    /// access (turned by its orientation, or every frame of an animation),
    /// at the size it is decoded, with what the decoder holds beside the
    /// pixels (``MemoryCost``).
    func checkWholeDecode(of header: VImage, format: ImageFormat, shrink: Int, randomAccess: Bool, frames: Int = 1) throws(DarkroomError) {
        let width = (header.width + shrink - 1) / shrink, height = (header.height + shrink - 1) / shrink
        let whole: Bool = switch format {
        case .webp, .avif, .heic, .jxl, .gif: true
        case .png: header.isInterlaced
        default: false
        }
        guard whole || randomAccess else { return }
        let heif = format == .avif || format == .heic ? heifCoding() : nil
        let perPixel = MemoryCost.wholeDecode(format, bands: header.bands, bytesPerSample: header.bytesPerSample, heif: heif)
        try reserveMemory(MemoryCost.product(width, height, frames, perPixel),
                          for: "the whole \(width) x \(height)\(frames > 1 ? " x \(frames) frames" : "") image")
    }

    /// How the source's coded images are sampled, from its boxes.
    private func heifCoding() -> HEIFStructure.Coding? {
        data.withUnsafeBytes { raw in (try? HEIFStructure.read(raw))??.coding }
    }
}
