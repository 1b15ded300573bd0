internal import DarkroomImaging

/// How each format is written past its quality: imgproxy's advanced
/// compression settings (`IMGPROXY_PNG_*`, `_WEBP_*`, `_AVIF_*`, `_JXL_*`,
/// `_JPEG_*`) and the URL options that override them per request (`jpgo`,
/// `pngo`, `webpo`, `avifo`). The defaults are imgproxy's.
public struct EncoderSettings: Sendable, Hashable, Codable {
    /// Interlaced PNG (`IMGPROXY_PNG_INTERLACED`).
    public var pngInterlaced = false
    /// PNG with a palette of at most ``pngQuantizationColours`` colours
    /// (`IMGPROXY_PNG_QUANTIZE`), chosen by libimagequant.
    public var pngQuantize = false
    /// In ``pngQuantizationColourRange`` (`IMGPROXY_PNG_QUANTIZATION_COLORS`).
    public var pngQuantizationColours = 256 {
        didSet { pngQuantizationColours = pngQuantizationColours.clamped(to: Self.pngQuantizationColourRange) }
    }
    public static let pngQuantizationColourRange = 2...256

    /// In ``webpEffortRange``, the CPU spent to make WebP smaller
    /// (`IMGPROXY_WEBP_EFFORT`).
    public var webpEffort = 4 {
        didSet { webpEffort = webpEffort.clamped(to: Self.webpEffortRange) }
    }
    public static let webpEffortRange = 1...6
    public var webpPreset: WebPPreset = .default
    public var webpCompression: WebPCompression = .lossy
    /// libwebp's sharper colour edges at some cost in size and time
    /// (`IMGPROXY_WEBP_SMART_SUBSAMPLE`).
    public var webpSmartSubsample = false

    /// In ``avifSpeedRange``: 0 slowest and smallest, 9 fastest
    /// (`IMGPROXY_AVIF_SPEED`).
    public var avifSpeed = 8 {
        didSet { avifSpeed = avifSpeed.clamped(to: Self.avifSpeedRange) }
    }
    public static let avifSpeedRange = 0...9
    public var avifSubsample: Subsampling = .auto

    /// In ``jxlEffortRange`` (`IMGPROXY_JXL_EFFORT`).
    public var jxlEffort = 4 {
        didSet { jxlEffort = jxlEffort.clamped(to: Self.jxlEffortRange) }
    }
    public static let jxlEffortRange = 1...9

    /// JPEG without chroma subsampling (`IMGPROXY_JPEG_NO_SUBSAMPLE`).
    public var jpegNoSubsample = false
    /// mozjpeg's: libvips applies these only when built with it; Debian's
    /// libvips (libjpeg-turbo) writes the same file without them.
    public var jpegTrellisQuant = false
    public var jpegOvershootDeringing = false
    /// Only with progressive JPEG, as imgproxy.
    public var jpegOptimizeScans = false
    /// In ``jpegQuantTables``.
    public var jpegQuantTable = 0 {
        didSet { jpegQuantTable = jpegQuantTable.clamped(to: Self.jpegQuantTables) }
    }
    /// mozjpeg's quantisation tables (`IMGPROXY_JPEG_QUANT_TABLE`, `jpgo`).
    public static let jpegQuantTables = 0...8

    public enum WebPPreset: String, Sendable, Hashable, Codable, CaseIterable {
        case `default`, photo, picture, drawing, icon, text
    }

    public enum WebPCompression: String, Sendable, Hashable, Codable, CaseIterable {
        case lossy
        case nearLossless = "near_lossless"
        case lossless
    }

    /// When chroma is stored at half resolution.
    public enum Subsampling: String, Sendable, Hashable, Codable, CaseIterable {
        /// Below quality 90.
        case auto
        case on, off
    }

    public init() {}

    /// Whether mozjpeg's settings asked for here have any effect: false
    /// where libvips is built with libjpeg-turbo (as Debian's is), which
    /// writes the same file without them.
    public var mozJPEGSettingsApply: Bool {
        guard jpegTrellisQuant || jpegOvershootDeringing || jpegOptimizeScans || jpegQuantTable != 0 else { return true }
        return JPEGTuning.mozJPEGSettingsApply
    }

    /// A short text of the settings that differ from the defaults, for
    /// cache keys ("" when none do).
    var identifier: String {
        let defaults = EncoderSettings()
        var parts: [String] = []
        if pngInterlaced { parts.append("pngi") }
        if pngQuantize { parts.append("pngq\(pngQuantizationColours)") }
        if webpEffort != defaults.webpEffort { parts.append("webpe\(webpEffort)") }
        if webpPreset != defaults.webpPreset { parts.append("webpp-\(webpPreset.rawValue)") }
        if webpCompression != defaults.webpCompression { parts.append("webpc-\(webpCompression.rawValue)") }
        if webpSmartSubsample { parts.append("webpss") }
        if avifSpeed != defaults.avifSpeed { parts.append("avifs\(avifSpeed)") }
        if avifSubsample != defaults.avifSubsample { parts.append("avifsub-\(avifSubsample.rawValue)") }
        if jxlEffort != defaults.jxlEffort { parts.append("jxle\(jxlEffort)") }
        if jpegNoSubsample { parts.append("jpgns") }
        if jpegTrellisQuant { parts.append("jpgtq") }
        if jpegOvershootDeringing { parts.append("jpgod") }
        if jpegOptimizeScans { parts.append("jpgos") }
        if jpegQuantTable != 0 { parts.append("jpgqt\(jpegQuantTable)") }
        return parts.joined(separator: "+")
    }

    /// Whether a baseline JPEG is written other than plainly (the
    /// thumbnail path writes only plain ones).
    var tunesJPEG: Bool { jpegNoSubsample || jpegTrellisQuant || jpegOvershootDeringing || jpegQuantTable != 0 }

    func jpegTuning(progressive: Bool) -> JPEGTuning {
        JPEGTuning(noSubsample: jpegNoSubsample, trellisQuant: jpegTrellisQuant, overshootDeringing: jpegOvershootDeringing,
                   optimizeScans: jpegOptimizeScans && progressive, quantTable: jpegQuantTable)
    }

    /// nil for plain PNG. The palette's bits, as imgproxy picks them.
    var pngTuning: PNGTuning? {
        guard pngInterlaced || pngQuantize else { return nil }
        let colours = pngQuantizationColours
        let bits = colours <= 2 ? 1 : colours <= 4 ? 2 : colours <= 16 ? 4 : 8
        return PNGTuning(interlaced: pngInterlaced, paletteBits: pngQuantize ? bits : nil)
    }

    var webpTuning: WebPTuning {
        // libvips' VipsForeignWebpPreset order.
        let preset = switch webpPreset {
        case .default: 0
        case .picture: 1
        case .photo: 2
        case .drawing: 3
        case .icon: 4
        case .text: 5
        }
        let compression = switch webpCompression {
        case .lossy: 0
        case .nearLossless: 1
        case .lossless: 2
        }
        return WebPTuning(effort: webpEffort, preset: preset, compression: compression, smartSubsample: webpSmartSubsample)
    }

    var avifTuning: HEIFTuning {
        HEIFTuning(effort: Self.avifSpeedRange.upperBound - avifSpeed, subsample: avifSubsample == .auto ? 0 : avifSubsample == .on ? 1 : 2)
    }
}
