public import Darkroom

/// The encoder options of imgproxy Pro's URLs (`jpgo`, `pngo`, `webpo`,
/// `avifo`): each argument, when given, over the server's setting of the
/// same name; an empty one keeps it.
extension ImageURLOptions {
    public struct EncoderOverrides: Sendable, Hashable {
        public var jpegProgressive: Bool?
        public var jpegNoSubsample: Bool?
        public var jpegTrellisQuant: Bool?
        public var jpegOvershootDeringing: Bool?
        public var jpegOptimizeScans: Bool?
        public var jpegQuantTable: Int?
        public var pngInterlaced: Bool?
        public var pngQuantize: Bool?
        public var pngQuantizationColours: Int?
        public var webpCompression: EncoderSettings.WebPCompression?
        public var webpSmartSubsample: Bool?
        public var webpPreset: EncoderSettings.WebPPreset?
        public var avifSubsample: EncoderSettings.Subsampling?

        public init() {}

        /// The server's settings with these over them; `progressive` is
        /// the server's progressive JPEG, and comes back as the answer's.
        func applied(to server: EncoderSettings, progressive: inout Bool) -> EncoderSettings {
            var settings = server
            if let jpegProgressive { progressive = jpegProgressive }
            if let jpegNoSubsample { settings.jpegNoSubsample = jpegNoSubsample }
            if let jpegTrellisQuant { settings.jpegTrellisQuant = jpegTrellisQuant }
            if let jpegOvershootDeringing { settings.jpegOvershootDeringing = jpegOvershootDeringing }
            if let jpegOptimizeScans { settings.jpegOptimizeScans = jpegOptimizeScans }
            if let jpegQuantTable { settings.jpegQuantTable = jpegQuantTable }
            if let pngInterlaced { settings.pngInterlaced = pngInterlaced }
            if let pngQuantize { settings.pngQuantize = pngQuantize }
            if let pngQuantizationColours { settings.pngQuantizationColours = pngQuantizationColours }
            if let webpCompression { settings.webpCompression = webpCompression }
            if let webpSmartSubsample { settings.webpSmartSubsample = webpSmartSubsample }
            if let webpPreset { settings.webpPreset = webpPreset }
            if let avifSubsample { settings.avifSubsample = avifSubsample }
            return settings
        }
    }

    /// The rules of the encoder options, by each of their names.
    static var encoderRules: [String: Rule] {
        var rules: [String: Rule] = [:]
        func add(_ names: String..., rule: @escaping Rule) {
            for name in names { rules[name] = rule }
        }
        add("jpeg_options", "jpgo") { o, a throws(ImageURLError) in
            // progressive:no_subsample:trellis_quant:overshoot_deringing:optimize_scans:quant_table
            try a.need(0...6)
            if a.text(0) != nil { o.encoderOverrides.jpegProgressive = a.bool(0) ?? false }
            if a.text(1) != nil { o.encoderOverrides.jpegNoSubsample = a.bool(1) ?? false }
            if a.text(2) != nil { o.encoderOverrides.jpegTrellisQuant = a.bool(2) ?? false }
            if a.text(3) != nil { o.encoderOverrides.jpegOvershootDeringing = a.bool(3) ?? false }
            if a.text(4) != nil { o.encoderOverrides.jpegOptimizeScans = a.bool(4) ?? false }
            if let table = a.text(5) {
                guard let value = Int(table), (0...8).contains(value) else {
                    throw .init("option '\(a.name)': the quantisation table '\(table)' is not from 0 to 8")
                }
                o.encoderOverrides.jpegQuantTable = value
            }
        }
        add("png_options", "pngo") { o, a throws(ImageURLError) in
            // interlaced:quantize:quantization_colors
            try a.need(0...3)
            if a.text(0) != nil { o.encoderOverrides.pngInterlaced = a.bool(0) ?? false }
            if a.text(1) != nil { o.encoderOverrides.pngQuantize = a.bool(1) ?? false }
            if let colours = a.text(2) {
                guard let value = Int(colours), (2...256).contains(value) else {
                    throw .init("option '\(a.name)': the palette of '\(colours)' colours is not from 2 to 256")
                }
                o.encoderOverrides.pngQuantizationColours = value
            }
        }
        add("webp_options", "webpo") { o, a throws(ImageURLError) in
            // compression:smart_subsample:preset
            try a.need(0...3)
            if let text = a.text(0) {
                guard let compression = EncoderSettings.WebPCompression(rawValue: text) else {
                    throw .init("option '\(a.name)': unknown compression '\(text)' (lossy, near_lossless, lossless)")
                }
                o.encoderOverrides.webpCompression = compression
            }
            if a.text(1) != nil { o.encoderOverrides.webpSmartSubsample = a.bool(1) ?? false }
            if let text = a.text(2) {
                guard let preset = EncoderSettings.WebPPreset(rawValue: text) else {
                    throw .init("option '\(a.name)': unknown preset '\(text)' (default, photo, picture, drawing, icon, text)")
                }
                o.encoderOverrides.webpPreset = preset
            }
        }
        add("preserve_hdr", "ph") { o, a throws(ImageURLError) in
            // As imgproxy: a value that is not a boolean is false, with a warning.
            try a.need(1...1)
            o.preserveHDR = a.bool(0) ?? false
        }
        add("avif_options", "avifo") { o, a throws(ImageURLError) in
            try a.need(0...1)
            if let text = a.text(0) {
                guard let subsample = EncoderSettings.Subsampling(rawValue: text) else {
                    throw .init("option '\(a.name)': unknown subsampling '\(text)' (auto, on, off)")
                }
                o.encoderOverrides.avifSubsample = subsample
            }
        }
        return rules
    }
}
