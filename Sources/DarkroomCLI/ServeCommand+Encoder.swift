import ArgumentParser
import Darkroom
import DarkroomServer

/// Each format's encoder settings, by imgproxy's names: `--encoder
/// NAME=VALUE` (the name lowercased) over `DARKROOM_NAME` (and imgproxy's
/// `IMGPROXY_NAME`), every value range-checked.
extension ServeCommand {
    /// The settings' names, as imgproxy spells them after `IMGPROXY_`.
    static let encoderSettingNames = [
        "PNG_INTERLACED", "PNG_QUANTIZE", "PNG_QUANTIZATION_COLORS", "WEBP_EFFORT", "WEBP_PRESET", "WEBP_COMPRESSION",
        "WEBP_SMART_SUBSAMPLE", "AVIF_SPEED", "AVIF_SUBSAMPLE", "JXL_EFFORT", "JPEG_NO_SUBSAMPLE", "JPEG_TRELLIS_QUANT",
        "JPEG_OVERSHOOT_DERINGING", "JPEG_OPTIMIZE_SCANS", "JPEG_QUANT_TABLE",
    ]

    func encoderSettings(env: (String) -> String?) throws -> EncoderSettings {
        var given: [String: (value: String, source: String)] = [:]
        for name in Self.encoderSettingNames {
            if let value = env(name) { given[name] = (value, "DARKROOM_\(name)") }
        }
        for pair in encoder {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, Self.encoderSettingNames.contains(parts[0].uppercased()) else {
                throw ValidationError("--encoder \(pair): expected NAME=VALUE, NAME one of \(Self.encoderSettingNames.map { $0.lowercased() }.joined(separator: ", "))")
            }
            given[parts[0].uppercased()] = (parts[1], "--encoder \(parts[0])")
        }
        var settings = EncoderSettings()
        for (name, (value, source)) in given.sorted(by: { $0.key < $1.key }) {
            func flag() throws -> Bool { try Self.boolean(value, source) }
            func number(_ range: ClosedRange<Int>) throws -> Int {
                guard let number = Int(value), range.contains(number) else {
                    throw ValidationError("\(source)=\(value): expected a whole number from \(range.lowerBound) to \(range.upperBound)")
                }
                return number
            }
            func choice<T: RawRepresentable & CaseIterable>(_: T.Type) throws -> T where T.RawValue == String {
                guard let choice = T(rawValue: value.lowercased()) else {
                    throw ValidationError("\(source)=\(value): expected one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                return choice
            }
            switch name {
            case "PNG_INTERLACED": settings.pngInterlaced = try flag()
            case "PNG_QUANTIZE": settings.pngQuantize = try flag()
            case "PNG_QUANTIZATION_COLORS": settings.pngQuantizationColours = try number(EncoderSettings.pngQuantizationColourRange)
            case "WEBP_EFFORT": settings.webpEffort = try number(EncoderSettings.webpEffortRange)
            case "WEBP_PRESET": settings.webpPreset = try choice(EncoderSettings.WebPPreset.self)
            case "WEBP_COMPRESSION": settings.webpCompression = try choice(EncoderSettings.WebPCompression.self)
            case "WEBP_SMART_SUBSAMPLE": settings.webpSmartSubsample = try flag()
            case "AVIF_SPEED": settings.avifSpeed = try number(EncoderSettings.avifSpeedRange)
            case "AVIF_SUBSAMPLE": settings.avifSubsample = try choice(EncoderSettings.Subsampling.self)
            case "JXL_EFFORT": settings.jxlEffort = try number(EncoderSettings.jxlEffortRange)
            case "JPEG_NO_SUBSAMPLE": settings.jpegNoSubsample = try flag()
            case "JPEG_TRELLIS_QUANT": settings.jpegTrellisQuant = try flag()
            case "JPEG_OVERSHOOT_DERINGING": settings.jpegOvershootDeringing = try flag()
            case "JPEG_OPTIMIZE_SCANS": settings.jpegOptimizeScans = try flag()
            case "JPEG_QUANT_TABLE": settings.jpegQuantTable = try number(EncoderSettings.jpegQuantTables)
            default: break
            }
        }
        return settings
    }

    /// `--unsharp-masking MODE[:WEIGHT:DIVIDER]`, else the three variables.
    func unsharpMaskingSetting(env: (String) -> String?) throws -> UnsharpMasking {
        let parts = unsharpMasking.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        let mode = parts?.first ?? env("UNSHARP_MASKING_MODE")
        let weight = parts.flatMap { $0.count > 1 && !$0[1].isEmpty ? $0[1] : nil } ?? env("UNSHARP_MASKING_WEIGHT")
        let divider = parts.flatMap { $0.count > 2 && !$0[2].isEmpty ? $0[2] : nil } ?? env("UNSHARP_MASKING_DIVIDER")
        var setting = UnsharpMasking()
        if let mode {
            guard let value = UnsharpMasking.Mode(rawValue: mode.lowercased()) else {
                throw ValidationError("unsharp masking mode \(mode): expected none, auto or always")
            }
            setting.mode = value
        }
        for (text, name, limit) in [(weight, "weight", 100.0), (divider, "divider", 10_000.0)] {
            guard let text else { continue }
            guard let value = Double(text), value.isFinite, value > 0, value <= limit else {
                throw ValidationError("unsharp masking \(name) \(text): expected a number above 0, up to \(Int(limit))")
            }
            if name == "weight" { setting.weight = value } else { setting.divider = value }
        }
        return setting
    }

    /// `--autoquality METHOD[:TARGET:MIN:MAX:ALLOWED_ERROR]`, else the
    /// variables, read as a URL's `aq` is; with the per-format ranges.
    func autoqualitySetting(env: (String) -> String?) throws -> Autoquality? {
        var values = autoquality.map { $0.split(separator: ":", omittingEmptySubsequences: false).map(String.init) }
        if values == nil, let method = env("AUTOQUALITY_METHOD") {
            values = [method] + ["TARGET", "MIN", "MAX", "ALLOWED_ERROR"].map { env("AUTOQUALITY_\($0)") ?? "" }
        }
        guard let values else { return nil }
        let parsed: AutoqualityOverride
        do {
            parsed = try AutoqualityOverride.parse(values, name: "--autoquality")
        } catch {
            throw ValidationError(error.message)
        }
        guard var setting = parsed.resolved(over: nil) else { return nil }
        for (text, name) in [(autoqualityFormatMin ?? env("AUTOQUALITY_FORMAT_MIN"), "min"), (autoqualityFormatMax ?? env("AUTOQUALITY_FORMAT_MAX"), "max")] {
            guard let text else { continue }
            for pair in text.split(separator: ",") {
                let parts = pair.split(separator: "=")
                guard parts.count == 2, let format = ImageFormat(name: String(parts[0]).trimmingCharacters(in: .whitespaces)), format.canEncode,
                      let quality = Int(parts[1].trimmingCharacters(in: .whitespaces)), (1...100).contains(quality) else {
                    throw ValidationError("autoquality format \(name) '\(pair)': expected FORMAT=QUALITY, the quality 1 to 100")
                }
                if name == "min" { setting.formatMin[format] = quality } else { setting.formatMax[format] = quality }
            }
        }
        return setting
    }

    /// A comma-separated list of formats Darkroom writes, in order, as
    /// imgproxy's `IMGPROXY_PREFERRED_FORMATS` (`jpeg,png,gif`).
    static func preferredFormats(_ text: String, jpegXL: Bool) throws -> [ImageFormat] {
        var formats: [ImageFormat] = []
        for name in text.commaList() {
            guard let format = ImageFormat(name: name), format.canEncode else {
                throw ValidationError("--preferred-formats: \"\(name.prefix(20))\" is not a format Darkroom writes (\(ImageFormat.encodable.map(\.rawValue).joined(separator: ", ")))")
            }
            guard format != .jxl || jpegXL else { throw ValidationError("--preferred-formats: jxl needs --jpeg-xl (libvips marks its JPEG XL codec untrusted)") }
            if !formats.contains(format) { formats.append(format) }
        }
        guard !formats.isEmpty else { throw ValidationError("--preferred-formats: name at least one format, such as jpeg,png,gif") }
        return formats
    }
}
