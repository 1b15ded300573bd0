/// The frames an animated GIF or WebP holds, counted from its container
/// alone (a WebP's chunks, a GIF's blocks), in one pass over the bytes and
/// without decoding anything.
///
/// libvips reads every frame's header before it answers with the first:
/// for a WebP it asks libwebp's demuxer for frame 1, then 2, ..., each
/// found by walking the list from the start, so a file of 160,000
/// one-pixel frames (8 MB) takes almost a minute before any limit applies.
/// The count comes first, and a file over the limit never reaches it.
package enum FrameCount {
    /// The frames counted, up to `limit + 1` (the walk stops there); nil
    /// for a format that does not animate, or a file whose container is cut
    /// short or damaged before its first frame (the decoder then says what
    /// is wrong).
    package static func count(_ raw: UnsafeRawBufferPointer, format: ImageFormat, limit: Int) -> Int? {
        switch format {
        case .webp: webp(raw, limit: limit)
        case .gif: gif(raw, limit: limit)
        default: nil
        }
    }

    /// `ANMF` chunks after the RIFF header; a still WebP has none (1).
    static func webp(_ raw: UnsafeRawBufferPointer, limit: Int) -> Int? {
        guard raw.count >= 12, Self.text(raw, 0) == "RIFF", Self.text(raw, 8) == "WEBP" else { return nil }
        var at = 12, frames = 0
        while at + 8 <= raw.count, frames <= limit {
            let size = Int(raw[at + 4]) | Int(raw[at + 5]) << 8 | Int(raw[at + 6]) << 16 | Int(raw[at + 7]) << 24
            if Self.text(raw, at) == "ANMF" { frames += 1 }
            // Chunks are padded to an even size.
            at += 8 + size + (size & 1)
        }
        return max(1, frames)
    }

    /// Image descriptors, each with its colour table and data sub-blocks
    /// skipped, up to the trailer or where the blocks stop making sense.
    static func gif(_ raw: UnsafeRawBufferPointer, limit: Int) -> Int? {
        guard raw.count >= 13, Self.text(raw, 0, length: 3) == "GIF" else { return nil }
        var at = 13 + Self.colourTable(raw[10])
        var frames = 0
        /// Skips data sub-blocks (a length byte, then that many bytes) to
        /// the empty one that ends them; false where the file ends first.
        func skipSubBlocks() -> Bool {
            while at < raw.count {
                let length = Int(raw[at])
                at += 1 + length
                if length == 0 { return true }
            }
            return false
        }
        while at < raw.count, frames <= limit {
            switch raw[at] {
            case 0x21:
                // An extension: its label, then sub-blocks.
                at += 2
                guard skipSubBlocks() else { return frames > 0 ? frames : nil }
            case 0x2C:
                // An image: 9 bytes of descriptor, a local colour table,
                // the LZW code size, then its data.
                guard at + 10 <= raw.count else { return frames > 0 ? frames : nil }
                at += 10 + Self.colourTable(raw[at + 9]) + 1
                frames += 1
                guard skipSubBlocks() else { return frames }
            default:
                // The trailer (0x3B), or bytes that are not a block.
                return frames > 0 ? frames : nil
            }
        }
        return frames > 0 ? frames : nil
    }

    /// The size of the colour table a packed field announces.
    private static func colourTable(_ packed: UInt8) -> Int {
        packed & 0x80 != 0 ? 3 << (Int(packed & 0x07) + 1) : 0
    }

    private static func text(_ raw: UnsafeRawBufferPointer, _ at: Int, length: Int = 4) -> String {
        String(decoding: raw[at..<at + length], as: UTF8.self)
    }
}
