internal import CVips

/// Frames laid out as one image (the video child's sprites and animation
/// frames): each frame scaled and placed into a cell of one size as it
/// comes, so only the cells are kept; then the cells joined in a grid.
package struct FrameSheet {
    package let cellWidth: Int
    package let cellHeight: Int
    package private(set) var cells: [VImage] = []

    package init(cellWidth: Int, cellHeight: Int) {
        (self.cellWidth, self.cellHeight) = (cellWidth, cellHeight)
    }

    /// `pixels` (RGB) scaled to `scaledWidth` x `scaledHeight` and placed at
    /// (`left`, `top`) in a black cell (negative: cut off), kept as the
    /// next cell.
    package mutating func add(_ pixels: RawPixels, scaledWidth: Int, scaledHeight: Int, left: Int, top: Int) throws(VipsError) {
        try VipsRuntime.start()
        let cell = try withRawBytes(of: pixels.bytes) { raw throws(VipsError) in
            let image = try VImage.make("new_from_memory") {
                darkroom_vips_from_memory(raw.baseAddress, raw.count, Int32(pixels.width), Int32(pixels.height), Int32(pixels.bands), $0)
            }
            let scaled = scaledWidth == pixels.width && scaledHeight == pixels.height ? image
                : try image.resized(horizontal: Double(scaledWidth) / Double(pixels.width), vertical: Double(scaledHeight) / Double(pixels.height))
            // Placed by embedding, which also pads or cuts a side the resize rounded.
            let placed = left == 0 && top == 0 && scaled.width == cellWidth && scaled.height == cellHeight ? scaled
                : try scaled.embedded(left: left, top: top, width: cellWidth, height: cellHeight, colour: Array(repeating: 0, count: scaled.bands))
            // Computed while the frame's pixels are here; they are not kept.
            return try placed.inMemory(PixelPass())
        }
        cells.append(cell)
    }

    /// The first `count` cells (black ones after those added) joined
    /// `across` to a row, the last row padded with black, as an
    /// uncompressed PNG; with `field`, a string field set on it and kept in
    /// the PNG (a "png-comment-" name).
    package func png(count: Int, across: Int, field: (name: String, value: String)? = nil) throws(VipsError) -> [UInt8] {
        let rows = (count + across - 1) / across
        var all = Array(cells.prefix(count))
        if all.count < rows * across {
            let black = try VImage.make("black") { darkroom_vips_black(Int32(cellWidth), Int32(cellHeight), 3, $0) }
            all += Array(repeating: black, count: rows * across - all.count)
        }
        var pointers: [UnsafeMutablePointer<CVips.VipsImage>?] = all.map(\.pointer)
        let joined = try withExtendedLifetime(all) { () throws(VipsError) in
            try pointers.withUnsafeMutableBufferPointer { (buffer) throws(VipsError) in
                try VImage.make("arrayjoin") { darkroom_vips_grid(buffer.baseAddress, Int32(buffer.count), Int32(across), $0) }
            }
        }
        let sheet = try field.map { (field) throws(VipsError) in
            try VImage.make("copy") { darkroom_vips_with_string(joined.pointer, $0, field.name, field.value) }
        } ?? joined
        return try sheet.storedPNG(PixelPass(), strip: field == nil)
    }
}
