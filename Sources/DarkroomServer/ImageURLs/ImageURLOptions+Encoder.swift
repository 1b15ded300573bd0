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
    static var encoderRules: OptionRules<ImageURLOptions> {
        var table = OptionRules<ImageURLOptions>(route: .processing)
        table.add(URLOption(["jpeg_options", "jpgo"], "%progressive:%no_subsample:%trellis_quant:%overshoot_deringing:%optimize_scans:%quant_table", ArgumentRange("quant_table", EncoderSettings.jpegQuantTables), cost: .encoder, pro: true, limit: "trellis quantisation, overshoot deringing, scan optimisation and quantisation tables are mozjpeg's: Debian's libvips is built with libjpeg-turbo, which writes JPEG without them (the server says so at start)", test: "OutputFormatServingTests.encoderOptionsOfImgproxyProURLs")) { o, a throws(ImageURLError) in
            // progressive:no_subsample:trellis_quant:overshoot_deringing:optimize_scans:quant_table
            try a.need(0...6)
            if a.text(0) != nil { o.encoderOverrides.jpegProgressive = a.bool(0) ?? false }
            if a.text(1) != nil { o.encoderOverrides.jpegNoSubsample = a.bool(1) ?? false }
            if a.text(2) != nil { o.encoderOverrides.jpegTrellisQuant = a.bool(2) ?? false }
            if a.text(3) != nil { o.encoderOverrides.jpegOvershootDeringing = a.bool(3) ?? false }
            if a.text(4) != nil { o.encoderOverrides.jpegOptimizeScans = a.bool(4) ?? false }
            if let value = try a.whole(5, "quantisation table", EncoderSettings.jpegQuantTables) { o.encoderOverrides.jpegQuantTable = value }
        }
        table.add(URLOption(["png_options", "pngo"], "%interlaced:%quantize:%quantization_colors", ArgumentRange("quantization_colors", EncoderSettings.pngQuantizationColourRange), cost: .encoder, pro: true, test: "OutputFormatServingTests.encoderOptionsOfImgproxyProURLs")) { o, a throws(ImageURLError) in
            // interlaced:quantize:quantization_colors
            try a.need(0...3)
            if a.text(0) != nil { o.encoderOverrides.pngInterlaced = a.bool(0) ?? false }
            if a.text(1) != nil { o.encoderOverrides.pngQuantize = a.bool(1) ?? false }
            if let value = try a.whole(2, "palette size", EncoderSettings.pngQuantizationColourRange) { o.encoderOverrides.pngQuantizationColours = value }
        }
        table.add(URLOption(["webp_options", "webpo"], "%compression:%smart_subsample:%preset", cost: .encoder, pro: true, test: "OutputFormatServingTests.encoderOptionsOfImgproxyProURLs")) { o, a throws(ImageURLError) in
            // compression:smart_subsample:preset
            try a.need(0...3)
            if let compression = try a.choice(0, "compression", EncoderSettings.WebPCompression.self) { o.encoderOverrides.webpCompression = compression }
            if a.text(1) != nil { o.encoderOverrides.webpSmartSubsample = a.bool(1) ?? false }
            if let preset = try a.choice(2, "preset", EncoderSettings.WebPPreset.self) { o.encoderOverrides.webpPreset = preset }
        }
        table.add(URLOption(["preserve_hdr", "ph"], "%enable", cost: .encoder, test: "OutputFormatServingTests.preserveHDRAsImgproxyReadsIt")) { o, a throws(ImageURLError) in
            // As imgproxy: a value that is not a boolean is false, with a warning.
            try a.need(1...1)
            o.preserveHDR = a.bool(0) ?? false
        }
        table.add(URLOption(["avif_options", "avifo"], "%subsample", cost: .encoder, pro: true, test: "EncoderSettingsTests.avifSubsampling")) { o, a throws(ImageURLError) in
            try a.need(0...1)
            if let subsample = try a.choice(0, "subsampling", EncoderSettings.Subsampling.self) { o.encoderOverrides.avifSubsample = subsample }
        }
        return table
    }
}
