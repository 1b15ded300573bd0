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
        try runOfDrawing(try decodedVideoFrame()).runUntimed()
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
    /// child; with `meta`, the streams' description (``VideoMetadata``).
    func decodedVideoFrame(meta: Bool = false) throws(DarkroomError) -> Data {
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
        var drawable = limits.maxSourcePixels
        let (status, output) = try childDrawing(video.command, arguments: { memory, pixels in
            drawable = pixels
            return VideoFrameDrawing.arguments(second: second, keyframes: keyframes, maxPixels: pixels,
                                               maxMemory: memory, maxSeconds: seconds, probeBytes: video.probeBytes, meta: meta)
        }, maxMemory: video.maxMemory,
                                                what: meta ? "the video's description" : "the video frame", drawing: !meta)
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
