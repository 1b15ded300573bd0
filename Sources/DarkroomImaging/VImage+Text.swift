internal import CVips

extension VImage {
    /// Plain text (never markup) as an RGBA watermark: white bold sans,
    /// `size` pixels high, with a soft shadow, wrapped at `width` pixels.
    package static func textMark(_ text: String, width: Int, size: Int) throws(VipsError) -> VImage {
        try make("text") { darkroom_vips_text_mark(text, Int32(width), Int32(size), $0) }
    }
}
