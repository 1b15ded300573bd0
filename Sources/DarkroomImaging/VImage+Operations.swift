internal import CImageFacts
internal import CVips

extension VImage {
    /// Resampling kernels, as libvips numbers them.
    package enum Kernel: Int32, Sendable {
        case nearest = 0, linear, cubic, mitchell, lanczos2, lanczos3
    }

    /// Rotates and flips by an EXIF orientation (by default libvips'
    /// reading of the image's own), and removes the tag.
    package func autoRotated(orientation: Int? = nil) throws(VipsError) -> VImage {
        let orientation = orientation ?? self.orientation
        guard (2...8).contains(orientation) else { return self }
        return try VImage.make("autorot") { darkroom_vips_autorot(pointer, $0, Int32(orientation)) }
    }

    /// Converts to 8-bit sRGB (from CMYK, 16-bit, grey, or, with
    /// `transformingProfile`, RGB under another profile such as Display P3),
    /// keeping alpha. Without it, an embedded RGB profile is left to travel
    /// with the pixels.
    package func srgb8(transformingProfile: Bool = true) throws(VipsError) -> VImage {
        let transforms = transformingProfile && hasForeignProfile
        guard !isSRGB8 || transforms else { return self }
        return try VImage.make("colourspace") { darkroom_vips_to_srgb8(pointer, $0, transforms ? 1 : 0) }
    }

    /// Converts to 16-bit RGB (or 16-bit grey), as ``srgb8(transformingProfile:)``
    /// does to 8 bits: for a source with more than 8 bits whose answer can
    /// carry them (imgproxy's `preserve_hdr`).
    package func srgb16(transformingProfile: Bool = true) throws(VipsError) -> VImage {
        let transforms = transformingProfile && hasForeignProfile
        return try VImage.make("colourspace") { darkroom_vips_to_srgb16(pointer, $0, transforms ? 1 : 0) }
    }

    /// Turned clockwise by `quarters` quarter turns (1, 2 or 3).
    package func rotated(quarters: Int) throws(VipsError) -> VImage {
        precondition((1...3).contains(quarters), "one to three quarter turns")
        return try VImage.make("rot") { darkroom_vips_rot(pointer, $0, Int32(quarters)) }
    }

    /// Mirrored left to right, or top to bottom.
    package func flipped(horizontally: Bool) throws(VipsError) -> VImage {
        try VImage.make("flip") { darkroom_vips_flip(pointer, $0, horizontally ? 1 : 0) }
    }

    /// Transparency filled with an RGB colour (0...255 each); no alpha band
    /// afterwards.
    package func flattened(red: Int, green: Int, blue: Int) throws(VipsError) -> VImage {
        try VImage.make("flatten") { darkroom_vips_flatten(pointer, $0, Double(red), Double(green), Double(blue)) }
    }

    /// On a larger canvas of `colour` (one value per band), the image at
    /// (left, top).
    package func embedded(left: Int, top: Int, width: Int, height: Int, colour: [Double]) throws(VipsError) -> VImage {
        precondition(colour.count == bands, "one colour value per band")
        return try VImage.make("embed") {
            darkroom_vips_embed(pointer, $0, Int32(left), Int32(top), Int32(width), Int32(height), colour, Int32(colour.count))
        }
    }

    /// Averaged into blocks of `size` x `size`, at the same size.
    package func pixelated(size: Int) throws(VipsError) -> VImage {
        try VImage.make("pixelate") { darkroom_vips_pixelate(pointer, $0, Int32(size)) }
    }

    package func resized(horizontal: Double, vertical: Double, kernel: Kernel = .lanczos3) throws(VipsError) -> VImage {
        try VImage.make("resize") { darkroom_vips_resize(pointer, $0, horizontal, vertical, kernel.rawValue) }
    }

    package func cropped(left: Int, top: Int, width: Int, height: Int) throws(VipsError) -> VImage {
        try VImage.make("extract_area") {
            darkroom_vips_crop(pointer, $0, Int32(left), Int32(top), Int32(width), Int32(height))
        }
    }

    /// Crops to the most interesting region, by libvips' attention measure
    /// (which computes the pixels as the crop is built).
    package func smartCropped(width: Int, height: Int, through pass: PixelPass) throws(VipsError) -> VImage {
        try VImage.make("smartcrop") { darkroom_vips_smartcrop(pointer, $0, Int32(width), Int32(height)) }
    }

    /// Multiplies every RGB pixel by a 3x3 matrix (row-major), clipping to
    /// 0...255 and keeping alpha.
    package func recombined(_ matrix: [Double]) throws(VipsError) -> VImage {
        precondition(matrix.count == 9, "a 3x3 matrix has nine entries")
        return try matrix.withUnsafeBufferPointer { m throws(VipsError) in
            try VImage.make("recomb") { darkroom_vips_recomb3(pointer, $0, m.baseAddress) }
        }
    }

    /// The same matrix, computed at once into memory in fixed point: for
    /// 8-bit images small enough to hold (a few megapixels). The pixels of
    /// the whole chain up to here are computed in this call, under the kill
    /// switch that made `pass`.
    package func recombinedInMemory(_ matrix: [Double], through pass: PixelPass) throws(VipsError) -> VImage {
        precondition(matrix.count == 9, "a 3x3 matrix has nine entries")
        guard darkroom_vips_band_format(pointer) == Int32(VIPS_FORMAT_UCHAR.rawValue), bands == 3 || bands == 4 else {
            return try recombined(matrix)
        }
        let memory = try VImage.make("recomb") { darkroom_vips_render_to_new_memory(pointer, $0) }
        // The thumbnail path's loop, on the same pixels: one arithmetic for both engines.
        dr_recombine(darkroom_vips_memory_pixels(memory.pointer), memory.width * memory.height, Int32(memory.bands), matrix)
        return memory
    }

    /// The image's pixels computed into memory, to be encoded more than
    /// once; arm a kill switch around it.
    /// The box that is not background (libvips' `find_trim`): pixels that
    /// differ from `background` (the top-left pixel's colour when nil) by
    /// more than `threshold`. Width and height 0 when all is background.
    /// Reads every pixel: call it on an image in memory.
    package func trimBox(threshold: Double, background: (red: Double, green: Double, blue: Double)?, through pass: PixelPass) throws(VipsError)
        -> (left: Int, top: Int, width: Int, height: Int) {
        var left: Int32 = 0, top: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        let colour = background ?? (0, 0, 0)
        guard darkroom_vips_find_trim(pointer, threshold, background == nil ? 0 : 1, colour.red, colour.green, colour.blue,
                                      &left, &top, &width, &height) == 0
        else { throw VipsError.fromBuffer(operation: "find_trim") }
        return (Int(left), Int(top), Int(width), Int(height))
    }

    /// `mark` laid over this image at `left`, `top` (or tiled over all of
    /// it, `gap` apart), its alpha multiplied by `opacity`. The result has
    /// this image's bands.
    package func watermarked(with mark: VImage, left: Int, top: Int, opacity: Double,
                             replicate: Bool, chessboard: Bool = false, gap: (x: Int, y: Int)) throws(VipsError) -> VImage {
        try VImage.make("composite2") {
            darkroom_vips_watermark(pointer, mark.pointer, $0, Int32(left), Int32(top), opacity,
                                    replicate ? 1 : 0, chessboard ? 1 : 0, Int32(gap.x), Int32(gap.y))
        }
    }

    package func inMemory(_ pass: PixelPass) throws(VipsError) -> VImage {
        try VImage.make("copy_memory") { darkroom_vips_copy_memory(pointer, $0) }
    }

    package func grayscale() throws(VipsError) -> VImage {
        try VImage.make("colourspace") { darkroom_vips_grayscale(pointer, $0) }
    }

    package func blurred(sigma: Double) throws(VipsError) -> VImage {
        try VImage.make("gaussblur") { darkroom_vips_gaussblur(pointer, $0, sigma) }
    }

    package func sharpened(sigma: Double) throws(VipsError) -> VImage {
        try VImage.make("sharpen") { darkroom_vips_sharpen(pointer, $0, sigma) }
    }
}
