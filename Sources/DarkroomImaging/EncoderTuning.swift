/// Encoder settings past the quality, one struct a format, each with
/// libvips' values; their defaults encode exactly as the plain encoders do.
package struct JPEGTuning: Sendable, Hashable, Codable {
    package var noSubsample = false
    /// The next four are mozjpeg's; libvips applies them only with it.
    package var trellisQuant = false
    package var overshootDeringing = false
    package var optimizeScans = false
    /// 0...8, mozjpeg's tables.
    package var quantTable = 0

    package init(noSubsample: Bool = false, trellisQuant: Bool = false, overshootDeringing: Bool = false, optimizeScans: Bool = false,
                 quantTable: Int = 0) {
        self.noSubsample = noSubsample
        self.trellisQuant = trellisQuant
        self.overshootDeringing = overshootDeringing
        self.optimizeScans = optimizeScans
        self.quantTable = quantTable
    }
}

package struct PNGTuning: Sendable, Hashable, Codable {
    package var interlaced = false
    /// A palette of at most this many bits a pixel (1, 2, 4 or 8), or nil
    /// for full colour.
    package var paletteBits: Int?

    package init(interlaced: Bool = false, paletteBits: Int? = nil) {
        self.interlaced = interlaced
        self.paletteBits = paletteBits
    }
}

package struct WebPTuning: Sendable, Hashable, Codable {
    /// 0...6, libvips' default 4.
    package var effort = 4
    /// libvips' preset number: 0 default, 1 picture, 2 photo, 3 drawing,
    /// 4 icon, 5 text.
    package var preset = 0
    /// 0 lossy, 1 near-lossless, 2 lossless.
    package var compression = 0
    package var smartSubsample = false

    package init(effort: Int = 4, preset: Int = 0, compression: Int = 0, smartSubsample: Bool = false) {
        self.effort = effort
        self.preset = preset
        self.compression = compression
        self.smartSubsample = smartSubsample
    }
}

package struct HEIFTuning: Sendable, Hashable, Codable {
    /// 0...9 (libheif's speed is 9 minus this); 1 is imgproxy's default
    /// AVIF speed of 8.
    package var effort = 1
    /// 0 auto (subsampled below quality 90), 1 always, 2 never.
    package var subsample = 0

    package init(effort: Int = 1, subsample: Int = 0) {
        self.effort = effort
        self.subsample = subsample
    }
}

extension JPEGTuning {
    /// Whether this libvips applies mozjpeg's settings (trellis
    /// quantisation, overshoot deringing, scan optimisation, quantisation
    /// tables): built with libjpeg-turbo, it ignores them, with a warning
    /// at every encode. Found once, by whether a flat quantisation table
    /// changes a small file; libvips warns once for the probe.
    package static let mozJPEGSettingsApply: Bool = {
        let pixels = RawPixels(width: 16, height: 16, bands: 3,
                               bytes: (0..<16 * 16 * 3).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        guard let plain = try? pixels.encoded(.jpeg(quality: 75, progressive: false)),
              let flat = try? pixels.encoded(.jpeg(quality: 75, progressive: false, tuning: JPEGTuning(quantTable: 1)))
        else { return false }
        return plain != flat
    }()

    /// The settings this libvips applies: mozjpeg's are dropped where they
    /// would only be ignored with a warning.
    package var applicable: JPEGTuning {
        guard trellisQuant || overshootDeringing || optimizeScans || quantTable != 0, !Self.mozJPEGSettingsApply else { return self }
        return JPEGTuning(noSubsample: noSubsample)
    }
}
