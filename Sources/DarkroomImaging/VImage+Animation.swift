internal import CVips

extension VImage {
    /// One frame's height, when the image is frames stacked top to bottom
    /// (an animation loaded with more than one page); else the height.
    package var pageHeight: Int { Int(darkroom_vips_page_height(pointer)) }

    /// Stacked frames or pages as one still image: no page height, frame
    /// count, delays or loop left for an encoder to animate.
    package func asOnePage() throws(VipsError) -> VImage {
        try VImage.make("copy") { darkroom_vips_one_page(pointer, $0) }
    }

    /// How long each frame shows, in milliseconds (empty for a still image).
    package var frameDelays: [Int] {
        var delays: UnsafeMutablePointer<Int32>?
        let count = Int(darkroom_vips_delays(pointer, &delays))
        guard let delays, count > 0 else { return [] }
        return (0..<count).map { Int(delays[$0]) }
    }

    /// How many times an animation plays (0: for ever), or nil when it does not say.
    package var loopCount: Int? {
        let loop = Int(darkroom_vips_loop(pointer))
        return loop < 0 ? nil : loop
    }

    /// A stack of frames' height, delays (at most one a frame) and loop
    /// count; nil for one page.
    package var frameTiming: FrameTiming? {
        let height = pageHeight
        guard height > 0, height < self.height else { return nil }
        return FrameTiming(pageHeight: height, delays: Array(frameDelays.prefix(self.height / height)), loop: loopCount)
    }

    /// This image as frames stacked top to bottom with `timing`: what an
    /// encoder needs to write an animation whose fields were lost on the
    /// way (an uncompressed PNG carries none of them).
    package func withFrameTiming(_ timing: FrameTiming) throws(VipsError) -> VImage {
        let delays = timing.delays.map { Int32(clamping: $0) }
        return try delays.withUnsafeBufferPointer { (buffer) throws(VipsError) in
            try VImage.make("copy") {
                darkroom_vips_set_frames(pointer, Int32(clamping: timing.pageHeight), buffer.baseAddress, Int32(buffer.count),
                                         Int32(clamping: timing.loop ?? -1), $0)
            }
        }
    }

    /// Frame `index` of a stack of frames.
    package func frame(_ index: Int) throws(VipsError) -> VImage {
        let height = pageHeight
        return try cropped(left: 0, top: index * height, width: width, height: height)
    }

    /// Frames of one size as one animation, which the GIF and WebP encoders
    /// write as such: their delays and loop count are `timing`'s (the loaded
    /// source's), the first `frames.count` of them.
    package static func joiningFrames(_ frames: [VImage], timing: VImage) throws(VipsError) -> VImage {
        var pointers: [UnsafeMutablePointer<CVips.VipsImage>?] = frames.map(\.pointer)
        let count = Int32(pointers.count)
        return try withExtendedLifetime(frames) { () throws(VipsError) in
            try pointers.withUnsafeMutableBufferPointer { (buffer) throws(VipsError) in
                try make("arrayjoin") { darkroom_vips_join_frames(buffer.baseAddress, count, timing.pointer, $0) }
            }
        }
    }
}

/// What makes a stack of frames an animation: each frame's height, how
/// long each shows (milliseconds) and how many times it plays (0: for
/// ever; nil: the format's default).
package struct FrameTiming: Sendable, Hashable, Codable {
    package var pageHeight: Int
    package var delays: [Int]
    package var loop: Int?

    package init(pageHeight: Int, delays: [Int], loop: Int?) {
        self.pageHeight = pageHeight
        self.delays = delays
        self.loop = loop
    }

    /// Whether these fields fit an image `height` rows tall: a frame
    /// height that divides it, at most a delay a frame, and numbers the
    /// savers take (delays in an `Int32`, a loop count in 16 bits).
    package func fits(height: Int) -> Bool {
        pageHeight >= 1 && height % pageHeight == 0 && delays.count <= height / pageHeight
            && delays.allSatisfy { (0...Int(Int32.max)).contains($0) } && (loop.map { (0...65535).contains($0) } ?? true)
    }
}
