internal import CVips
import Foundation

/// Colour adjustments on 8-bit sRGB images (imgproxy Pro's `adjust`,
/// `monochrome`, `duotone` and `colorize`), made of libvips' arithmetic:
/// alpha is set aside and put back as it was unless a step says otherwise.
extension VImage {
    /// Brightness added (-255...255, in 8-bit steps), contrast around
    /// mid-grey (1 leaves it), saturation as a multiple of CIE LCh chroma
    /// (1 leaves it, 0 is grey).
    package func adjusted(brightness: Double, contrast: Double, saturation: Double) throws(VipsError) -> VImage {
        try withColourBands { colour throws(VipsError) in
            var image = colour
            let bands = colour.bands
            if brightness != 0 || contrast != 1 {
                image = try image.linear(Array(repeating: contrast, count: bands),
                                         Array(repeating: brightness + 128 * (1 - contrast), count: bands)).castUChar()
            }
            if saturation != 1, bands >= 3 {
                let lch = try VImage.make("colourspace") { darkroom_vips_colourspace(image.pointer, $0, Int32(VIPS_INTERPRETATION_LCH.rawValue)) }
                let scaled = try lch.linear([1, saturation, 1], [0, 0, 0])
                image = try VImage.make("colourspace") { darkroom_vips_colourspace(scaled.pointer, $0, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
                    .castUChar()
            }
            return image
        }
    }

    /// Luminance mapped from `shadows` (black) to `highlights` (white),
    /// blended with the image by `intensity` (0...1). Colours are 0...255.
    package func duotoned(intensity: Double, shadows: [Double], highlights: [Double]) throws(VipsError) -> VImage {
        try withColourBands { colour throws(VipsError) in
            let luminance = try VImage.make("colourspace") { darkroom_vips_colourspace(colour.pointer, $0, Int32(VIPS_INTERPRETATION_B_W.rawValue)) }
            // One band, three constants: three bands, each from shadow to highlight.
            let toned = try luminance.linear((0..<3).map { (highlights[$0] - shadows[$0]) / 255 }, shadows)
            let rgb = try colour.inRGB()
            return try rgb.blended(with: toned, weight: intensity)
        }
    }

    /// A colour laid over the image at `opacity` (0...1); with
    /// `keepingAlpha`, transparency stays as it was, else the overlay
    /// covers it in proportion.
    package func colourised(opacity: Double, colour: [Double], keepingAlpha: Bool) throws(VipsError) -> VImage {
        let hadAlpha = hasAlpha
        let result = try withColourBands { image throws(VipsError) in
            let rgb = try image.inRGB()
            return try rgb.linear([1 - opacity, 1 - opacity, 1 - opacity], colour.map { $0 * opacity }).castUChar()
        }
        guard hadAlpha, !keepingAlpha, opacity > 0 else { return result }
        // alpha + (255 - alpha) * opacity
        let colourBands = try VImage.make("extract_band") { darkroom_vips_extract_bands(result.pointer, $0, 0, Int32(result.bands - 1)) }
        let alpha = try VImage.make("extract_band") { darkroom_vips_extract_bands(result.pointer, $0, Int32(result.bands - 1), 1) }
        let covered = try alpha.linear([1 - opacity], [255 * opacity]).castUChar()
        return try VImage.make("bandjoin") { darkroom_vips_bandjoin2(colourBands.pointer, covered.pointer, $0) }
    }

    /// Transparency filled with `colour` at `alpha` (0...1), the image's
    /// own alpha kept where it covers more (imgproxy Pro's
    /// `background_alpha`): the image laid over a background that is
    /// itself partly transparent.
    package func flattened(onto colour: [Double], alpha g: Double) throws(VipsError) -> VImage {
        guard hasAlpha else { return self }
        let rgba = try inRGB()
        let colourBands = try VImage.make("extract_band") { darkroom_vips_extract_bands(rgba.pointer, $0, 0, 3) }
        let a = try VImage.make("extract_band") { darkroom_vips_extract_bands(rgba.pointer, $0, 3, 1) }.linear([1.0 / 255], [0])
        let uncovered = try a.linear([-1], [1])
        // out alpha = a + g (1 - a); out colour = (c a + B g (1 - a)) / out alpha.
        let outAlpha = try a.linear([1 - g], [g])
        let own = try VImage.make("multiply") { darkroom_vips_multiply(colourBands.pointer, a.pointer, $0) }
        let behind = try uncovered.linear(colour.map { $0 * g }, [0, 0, 0])
        let sum = try VImage.make("add") { darkroom_vips_add(own.pointer, behind.pointer, $0) }
        let colourOut = try VImage.make("divide") { darkroom_vips_divide(sum.pointer, outAlpha.pointer, $0) }.castUChar()
        let alphaOut = try outAlpha.linear([255], [0]).castUChar()
        return try VImage.make("bandjoin") { darkroom_vips_bandjoin2(colourOut.pointer, alphaOut.pointer, $0) }
    }

    /// The image with a Gaussian blur of `sigma` inside each rectangle
    /// (left, top, width, height, in pixels, already within the image).
    package func blurred(sigma: Double, areas: [(left: Int, top: Int, width: Int, height: Int)]) throws(VipsError) -> VImage {
        var image = self
        for area in areas where area.width > 0 && area.height > 0 {
            let part = try VImage.make("extract_area") { darkroom_vips_crop(image.pointer, $0, Int32(area.left), Int32(area.top), Int32(area.width), Int32(area.height)) }
            let blurred = try part.blurred(sigma: sigma)
            let base = image
            image = try VImage.make("insert") { darkroom_vips_insert(base.pointer, blurred.pointer, $0, Int32(area.left), Int32(area.top)) }
        }
        return image
    }

    /// imgproxy Pro's unsharp masking: a 3 x 3 kernel whose neighbours
    /// are -`weight` and whose centre is `divider` + 8 `weight`, over
    /// `divider`: the pixel plus (weight / divider) of its difference from
    /// its neighbours.
    package func unsharpMasked(weight: Double, divider: Double) throws(VipsError) -> VImage {
        try withColourBands { colour throws(VipsError) in
            let kernel = [-weight, -weight, -weight, -weight, divider + 8 * weight, -weight, -weight, -weight, -weight]
            return try kernel.withUnsafeBufferPointer { values throws(VipsError) in
                try VImage.make("conv") { darkroom_vips_conv3(colour.pointer, $0, values.baseAddress, divider) }
            }.castUChar()
        }
    }

    /// A colour laid over the image through a linear ramp (imgproxy Pro's
    /// `gradient`): transparent where the ramp starts, `opacity` where it
    /// ends, along `angle` degrees clockwise from "down"; `start` and
    /// `stop` are where along it (0...1) the ramp begins and ends.
    package func gradient(colour: [Double], opacity: Double, angle: Double, start: Double, stop: Double) throws(VipsError) -> VImage {
        let mask = try ramp(angle: angle, start: start, stop: stop, scale: opacity)
        return try withColourBands { image throws(VipsError) in
            let rgb = try image.inRGB()
            // c (1 - m) + C m
            let uncovered = try mask.linear([-1], [1])
            let kept = try VImage.make("multiply") { darkroom_vips_multiply(rgb.pointer, uncovered.pointer, $0) }
            let laid = try mask.linear(colour, [0, 0, 0])
            return try VImage.make("add") { darkroom_vips_add(kept.pointer, laid.pointer, $0) }.castUChar()
        }
    }

    /// imgproxy Pro's `progressive_blur`: the image where the ramp (as
    /// ``gradient(colour:opacity:angle:start:stop:)``'s) starts, its
    /// Gaussian blur of `sigma` where it stops, blended between; every
    /// band, alpha too.
    package func progressivelyBlurred(sigma: Double, angle: Double, start: Double, stop: Double) throws(VipsError) -> VImage {
        let mask = try ramp(angle: angle, start: start, stop: stop, scale: 1)
        let blurred = try blurred(sigma: sigma)
        // i (1 - m) + b m
        let uncovered = try mask.linear([-1], [1])
        let kept = try VImage.make("multiply") { darkroom_vips_multiply(pointer, uncovered.pointer, $0) }
        let laid = try VImage.make("multiply") { darkroom_vips_multiply(blurred.pointer, mask.pointer, $0) }
        return try VImage.make("add") { darkroom_vips_add(kept.pointer, laid.pointer, $0) }.castUChar()
    }

    /// One band, 0 where a ramp along `angle` degrees clockwise from
    /// "down" has not reached `start` (0...1 of the way across the image)
    /// to `scale` where it passes `stop`.
    private func ramp(angle: Double, start: Double, stop: Double, scale: Double) throws(VipsError) -> VImage {
        let radians = angle * .pi / 180
        let (dx, dy) = (-sin(radians), cos(radians))
        // The projections of the corners bound the ramp.
        let corners = [(0.0, 0.0), (Double(width - 1), 0.0), (0.0, Double(height - 1)), (Double(width - 1), Double(height - 1))]
            .map { $0.0 * dx + $0.1 * dy }
        let low = corners.min() ?? 0, span = max(1e-9, (corners.max() ?? 1) - low)
        let xy = try VImage.make("xyz") { darkroom_vips_xyz($0, Int32(width), Int32(height)) }
        let projected = try VImage.make("recomb") { darkroom_vips_weighted_sum2(xy.pointer, $0, dx, dy) }
        // t = (p - low) / span, then (t - start) / (stop - start) clipped
        // to 0...255 (as 8 bits), then scaled by the opacity to 0...1.
        let length = max(1e-9, stop - start)
        let ramp = try projected.linear([255 / (span * length)], [-(low / span + start) * 255 / length]).castUChar()
        return try ramp.linear([scale / 255], [0])
    }

    /// `body` on the colour bands alone; the alpha band, if any, joined
    /// back after it.
    func withColourBands(_ body: (VImage) throws(VipsError) -> VImage) throws(VipsError) -> VImage {
        guard hasAlpha else { return try body(self) }
        let colour = try VImage.make("extract_band") { darkroom_vips_extract_bands(pointer, $0, 0, Int32(bands - 1)) }
        let alpha = try VImage.make("extract_band") { darkroom_vips_extract_bands(pointer, $0, Int32(bands - 1), 1) }
        let adjusted = try body(colour)
        return try VImage.make("bandjoin") { darkroom_vips_bandjoin2(adjusted.pointer, alpha.pointer, $0) }
    }

    /// Grey (with or without alpha) as sRGB; colour as it is.
    func inRGB() throws(VipsError) -> VImage {
        let colourBands = hasAlpha ? bands - 1 : bands
        guard colourBands < 3 else { return self }
        return try VImage.make("colourspace") { darkroom_vips_colourspace(pointer, $0, Int32(VIPS_INTERPRETATION_sRGB.rawValue)) }
    }

    /// in * a + b, a constant a band, in float.
    func linear(_ a: [Double], _ b: [Double]) throws(VipsError) -> VImage {
        precondition(a.count == b.count, "one offset a factor")
        return try a.withUnsafeBufferPointer { factors throws(VipsError) in
            try b.withUnsafeBufferPointer { offsets throws(VipsError) in
                try VImage.make("linear") { darkroom_vips_linear(pointer, $0, factors.baseAddress, offsets.baseAddress, Int32(a.count)) }
            }
        }
    }

    func castUChar() throws(VipsError) -> VImage {
        try VImage.make("cast") { darkroom_vips_cast_uchar(pointer, $0) }
    }

    /// self * (1 - weight) + other * weight, as 8 bits.
    func blended(with other: VImage, weight: Double) throws(VipsError) -> VImage {
        let keep = try linear(Array(repeating: 1 - weight, count: bands), Array(repeating: 0, count: bands))
        let add = try other.linear(Array(repeating: weight, count: other.bands), Array(repeating: 0, count: other.bands))
        return try VImage.make("add") { darkroom_vips_add(keep.pointer, add.pointer, $0) }.castUChar()
    }
}
