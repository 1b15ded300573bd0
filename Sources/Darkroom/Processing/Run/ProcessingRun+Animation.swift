import DarkroomImaging

/// Animated GIF and WebP: every frame goes through the same steps, and the
/// frames are written again as one animation with the source's timing.
extension ProcessingRun {
    /// The frames to decode and the format to write them in, when the
    /// source is animated and its answer animates too; nil otherwise (the
    /// first frame is then answered as a still image).
    func animation(of header: VImage, format: ImageFormat) -> (frames: Int, format: ImageFormat)? {
        guard format.animates, !options.pages.disableAnimation else { return nil }
        let frames = min(header.pageCount, options.limits.maxAnimationFrames)
        guard frames > 1, let output = animatedFormat(source: format) else { return nil }
        return (frames, output)
    }

    /// The URL's format if it animates, else the fallback for a format
    /// that was only a preference; with none, the source's format, or WebP
    /// for a client that names its formats and takes WebP (every browser
    /// that takes WebP shows it animated).
    func animatedFormat(source: ImageFormat) -> ImageFormat? {
        let output = options.output
        if let format = output.format {
            return format.animates ? format : output.animationFormat
        }
        if let preferred = output.preferredFormats, !preferred.isEmpty {
            // imgproxy's rule: the source's format when listed, else the
            // first listed that animates; none: a still image.
            return preferred.contains(source) ? source : preferred.first(where: \.animates)
        }
        guard let accepted = output.acceptedFormats else { return source }
        return accepted.contains(.webp) ? .webp : nil
    }

    func runAnimation(_ raw: UnsafeRawBufferPointer, format: ImageFormat, frames: Int, outputFormat: ImageFormat,
                      source: ProcessedImage.SourceInfo) throws(DarkroomError) -> ProcessedImage {
        // Decoded whole (random access): each frame is cut out of the stack.
        let stack = try load(raw, format: format, shrink: 1, randomAccess: true, pages: frames)
        guard stack.height == stack.pageHeight * frames else {
            throw DarkroomError(.corruptImage, "the \(format.rawValue.uppercased()) animation's \(frames) frames are not of one size")
        }
        let orientation = options.autoRotate ? self.orientation(of: raw, format: format, header: stack) : 1
        return try runFrames(of: stack, frames: frames, orientation: orientation, outputFormat: outputFormat, sourceFormat: format, source: source)
    }

    /// Each of `frames` frames of `stack` (frames of one size stacked top
    /// to bottom, with their timing) through the steps, written again as
    /// one animation.
    func runFrames(of stack: VImage, frames: Int, orientation: Int, outputFormat: ImageFormat, sourceFormat format: ImageFormat,
                   source: ProcessedImage.SourceInfo) throws(DarkroomError) -> ProcessedImage {
        // A search on every frame would cost each frame's time, and cuts
        // that follow moving faces would differ in size.
        guard !options.operations.contains(where: \.detectsObjects) else {
            throw .invalidOption("the face options work on still images: ask for one frame of the animation (da:1, or a still format)")
        }
        var results: [VImage] = []
        for index in 0..<frames {
            try killSwitch.check()
            var image = try vips("taking frame \(index + 1)") { try stack.frame(index) }
            image = try inSRGB(image)
            if orientation != 1 {
                image = try vips("rotating by EXIF orientation") { try image.autoRotated(orientation: orientation) }
            }
            image = try applyingSteps(to: image, firstReference: nil)
            if let first = results.first, first.width != image.width || first.height != image.height {
                // Only a step that looks at the pixels (trim) can do this.
                throw DarkroomError(.invalidOption, "the animation's frames came out in different sizes (\(first.width) x \(first.height) and \(image.width) x \(image.height)): trim each frame's border alike, or ask for a still format")
            }
            results.append(image)
        }
        let animation = try vips("joining the frames") { try VImage.joiningFrames(results, timing: stack) }
        let bytes = try encode(animation, as: outputFormat, sourceFormat: format)
        try killSwitch.check()
        return ProcessedImage(bytes: bytes, format: outputFormat, width: results[0].width, height: results[0].height, source: source)
    }
}
