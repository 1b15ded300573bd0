import DarkroomImaging
import Foundation

/// Video sources: one frame decoded by a child process (see
/// ``VideoThumbnails``), then run through the usual steps as the PNG it is.
enum VideoSource: DrawnSource {
    static let format = ImageFormat.video
    static func run(_ run: ProcessingRun) throws(DarkroomError) -> ProcessedImage { try run.videoRun() }
    static func inspect(_ run: ProcessingRun, includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        try run.videoInspect(includeGPS: includeGPS, asked: asked)
    }
}

extension ProcessingRun {
    /// The answer to a video source.
    func videoRun() throws(DarkroomError) -> ProcessedImage {
        guard var sprite = options.videoSprite else { return try runOfDrawing(try decodedVideoFrame()).runUntimed() }
        if let problem = sprite.problem { throw .invalidOption(problem) }
        guard case .animation(let delay, let asked) = sprite.layout else {
            return try runOfDrawing(try decodedVideoFrame(sprite: sprite)).runUntimed()
        }
        // At most the frames an animated source may keep, as for a GIF.
        let frames = min(asked, max(1, options.limits.maxAnimationFrames))
        sprite.layout = .animation(delay: delay, frames: frames)
        // Answered in a format that animates (as for a GIF source), else
        // as its first frame alone.
        guard !options.pages.disableAnimation, let output = animatedFormat(source: .gif) else {
            var first = sprite
            first.layout = .animation(delay: delay, frames: 1)
            return try runOfDrawing(try decodedVideoFrame(sprite: first)).runUntimed()
        }
        return try runOfDrawing(try decodedVideoFrame(sprite: sprite)).runVideoAnimation(delay: delay, most: frames, as: output)
    }

    /// The child's stacked frames (this run's source) as an animation of
    /// `delay` milliseconds a frame, through the steps frame by frame.
    private func runVideoAnimation(delay: Int, most: Int, as output: ImageFormat) throws(DarkroomError) -> ProcessedImage {
        try Self.startLibvips()
        return try withRawBytes(of: data) { raw throws(DarkroomError) in
            let loaded = try load(raw, format: .png, shrink: 1, randomAccess: true)
            // The child's word, checked: it ran FFmpeg on a stranger's bytes.
            guard let said = loaded.field(VideoSprite.frameCountField), let count = Int(said), (1...most).contains(count),
                  loaded.height % count == 0, MemoryCost.product(loaded.width, loaded.height) <= options.limits.maxSourcePixels else {
                throw DarkroomError(.processingFailed, "the video child's frames did not come back as asked")
            }
            try checkWholeDecode(of: loaded, format: .png, shrink: 1, randomAccess: true)
            let timing = FrameTiming(pageHeight: loaded.height / count, delays: Array(repeating: delay, count: count), loop: 0)
            let stack = try vips("setting the frames' timing") { try loaded.withFrameTiming(timing) }
            let source = ProcessedImage.SourceInfo(format: .video, width: loaded.width, height: timing.pageHeight)
            return try runFrames(of: stack, frames: count, orientation: 1, outputFormat: output, sourceFormat: .png, source: source)
        }
    }

    /// What `/info` says of a video: that of its frame.
    func videoInspect(includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo {
        var info = try runOfDrawing(try decodedVideoFrame()).inspect(includeGPS: includeGPS, asked: asked)
        info.format = .video
        if asked.videoMeta {
            let json = try decodedVideoFrame(meta: true)
            guard let metadata = try? JSONDecoder().decode(VideoMetadata.self, from: json) else {
                throw DarkroomError(.processingFailed, "the video's description could not be read back")
            }
            (info.videoMeta, info.videoStreams) = (metadata.tags, metadata.streams)
        }
        return info
    }

    /// The frame the options (else the server) name, as a PNG, from the
    /// child; with `sprite`, the frames it lays out; with `meta`, the
    /// streams' description (``VideoMetadata``).
    func decodedVideoFrame(meta: Bool = false, sprite: VideoSprite? = nil) throws(DarkroomError) -> Data {
        let limits = options.limits
        guard let video = limits.videoThumbnails else {
            throw DarkroomError(.notAnImage, "the input is a video, and video frames are not read here (darkroom serve --video-thumbnails turns it on, in a child process of its own)")
        }
        let second = options.videoSecond ?? video.second
        guard VideoThumbnails.seconds.contains(second) else { throw .invalidOption("video second \(second) is outside 0...86400") }
        guard VideoThumbnails.probeBytesRange.contains(video.probeBytes) else {
            throw .invalidOption("the video child's probe of \(video.probeBytes) bytes is out of range")
        }
        let seconds = max(1, Int(limits.maxProcessingTime.components.seconds))
        let keyframes = options.videoKeyframes ?? video.keyframes
        // The layout as the child reads it; one that cannot be written is refused, never dropped.
        let layout: String?
        if let sprite {
            guard let json = try? JSONEncoder().encode(sprite) else { throw .invalidOption("the video's frame layout cannot be handed to its child") }
            layout = String(decoding: json, as: UTF8.self)
        } else {
            layout = nil
        }
        var drawable = limits.maxSourcePixels
        let (status, output) = try childDrawing(video.command, arguments: { memory, pixels in
            drawable = pixels
            return VideoFrameDrawing.arguments(second: second, keyframes: keyframes, maxPixels: pixels,
                                               maxMemory: memory, maxSeconds: seconds, probeBytes: video.probeBytes, meta: meta, sprite: layout)
        }, maxMemory: video.maxMemory,
                                                what: meta ? "the video's description" : sprite == nil ? "the video frame" : "the video's frames", drawing: !meta)
        let reason = String(decoding: output.prefix(500), as: UTF8.self)
        switch status {
        case VideoFrameDrawing.Outcome.frame(Data()).status:
            return output
        case VideoFrameDrawing.Outcome.noVideo("").status:
            throw DarkroomError(.notAnImage, "the file has no video Darkroom can decode: \(reason)")
        case VideoFrameDrawing.Outcome.tooLarge("").status:
            throw DarkroomError(.tooManyPixels, "the video's frames are larger than \(ChildMemory.pixelLimitSaid(drawable, limit: limits.maxSourcePixels))")
        default:
            throw DarkroomError(.corruptImage, "the video could not be read", underlying: reason)
        }
    }
}
