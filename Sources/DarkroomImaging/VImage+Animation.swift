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
