internal import CVips
#if !DARKROOM_TSAN_LOCKS
import Synchronization
#endif

/// Pango markup, checked before libvips draws it.
package enum TextMarkup {
    /// The checks' font map, one thread at a time; drawing holds the same
    /// lock, since Pango's state is not safe across threads and libvips'
    /// own lock covers only its drawing.
    static let fontMap = Locked(FontMap())

    struct FontMap: ~Copyable {
        let pointer = darkroom_text_fontmap_new()
    }

    /// What markup's attributes ask of the font, in points: 0 where
    /// nothing is set.
    package struct Metrics: Sendable {
        package var size = 0.0
        package var scale = 0.0
        package var spacing = 0.0
        package var rise = 0.0
        package var lineHeight = 0.0
        package var absoluteLineHeight = 0.0
    }

    /// Nil when `markup` parses, else Pango's reason; the font families it
    /// names; and what its attributes ask. Lays nothing out.
    package static func check(_ markup: String) -> (problem: String?, families: [String], metrics: Metrics) {
        var names: UnsafeMutablePointer<CChar>?
        var raw = darkroom_markup_metrics()
        let problem = darkroom_markup_check(markup, &names, &raw)
        defer {
            g_free(problem)
            g_free(names)
        }
        if let problem { return (String(cString: problem), [], Metrics()) }
        let families = names.map { String(cString: $0).split(separator: "\n").map(String.init) } ?? []
        let metrics = Metrics(size: raw.size, scale: raw.scale, spacing: raw.spacing, rise: raw.rise,
                              lineHeight: raw.line_height, absoluteLineHeight: raw.absolute_line_height)
        return (nil, families, metrics)
    }

    /// The pixels `markup` lays out in, in `font` at `dpi`, wrapped at `width`.
    package static func extents(_ markup: String, font: String, width: Int, dpi: Int) -> (width: Int, height: Int) {
        var w: Int32 = 0, h: Int32 = 0
        fontMap.withLock { map in darkroom_markup_extents(map.pointer, markup, font, Int32(width), Int32(dpi), &w, &h) }
        return (Int(w), Int(h))
    }

    /// Every font family installed, as Pango lists them.
    package static func installedFamilies() -> [String] {
        guard let names = fontMap.withLock({ map in darkroom_font_families(map.pointer) }) else { return [] }
        defer { g_free(names) }
        return String(cString: names).split(separator: "\n").map(String.init)
    }
}

extension VImage {
    /// `markup` as an RGBA watermark: in colour, black unless the markup
    /// says otherwise, on transparency, wrapped at `width` pixels.
    package static func markup(_ markup: String, font: String, width: Int, dpi: Int) throws(VipsError) -> VImage {
        try TextMarkup.fontMap.withLock { (_: inout TextMarkup.FontMap) throws(VipsError) -> VImage in
            try make("text") { darkroom_vips_markup(markup, font, Int32(width), Int32(dpi), $0) }
        }
    }

    /// This RGBA image turned `degrees` clockwise onto transparency.
    package func turned(clockwise degrees: Double) throws(VipsError) -> VImage {
        try VImage.make("rotate") { darkroom_vips_rotate_any(pointer, degrees, $0) }
    }

    /// This RGBA image over its own soft black shadow.
    package func withShadow(sigma: Double) throws(VipsError) -> VImage {
        try VImage.make("shadow") { darkroom_vips_drop_shadow(pointer, sigma, $0) }
    }
}
