import DarkroomImaging
public import Foundation

/// Video sources, answered by one frame (imgproxy Pro's video thumbnails),
/// read by FFmpeg's libraries: off unless set, and then never in the
/// calling process. A child process (``command``, such as
/// `darkroom render-video-frame`) reads the video on its standard input and
/// writes the frame as PNG, under an address-space and CPU limit and the
/// run's deadline.
public struct VideoThumbnails: Sendable, Hashable, Codable {
    /// The executable and its first arguments; the frame's time and the
    /// limits follow (see ``VideoFrameDrawing/arguments(second:keyframes:maxPixels:maxMemory:maxSeconds:probeBytes:)``).
    public var command: [String]
    /// The most memory the child may map, in bytes (1 GiB by default).
    public var maxMemory = 1 << 30
    /// The frame's time, in seconds, where the URL names none (imgproxy
    /// Pro's `IMGPROXY_VIDEO_THUMBNAIL_SECOND`, 1).
    public var second = 1.0
    /// The keyframe at or before that time, faster to find (Pro's
    /// `IMGPROXY_VIDEO_THUMBNAIL_KEYFRAMES`, off).
    public var keyframes = false
    /// The most bytes read to find the streams (Pro's
    /// `IMGPROXY_VIDEO_THUMBNAIL_PROBE_SIZE`, 5,000,000).
    public var probeBytes = 5_000_000

    public init(command: [String], maxMemory: Int = 1 << 30, second: Double = 1, keyframes: Bool = false, probeBytes: Int = 5_000_000) {
        self.command = command
        self.maxMemory = maxMemory
        self.second = second
        self.keyframes = keyframes
        self.probeBytes = probeBytes
    }

    public static let seconds = 0.0...86_400.0
    public static let probeBytesRange = 32...100_000_000
}

/// What the child process that draws a video frame does, in that process.
package enum VideoFrameDrawing {
    /// How the child ends; its exit status.
    package enum Outcome: Sendable, Equatable {
        /// The frame as an uncompressed PNG on standard output (0).
        case frame(Data)
        /// No video stream, or none with a decoder here (3).
        case noVideo(String)
        /// The container or stream could not be read (4).
        case unreadable(String)
        /// Frames larger than the pixel limit (5).
        case tooLarge(String)

        package var status: Int32 {
            switch self {
            case .frame: 0
            case .noVideo: 3
            case .unreadable: 4
            case .tooLarge: 5
            }
        }

        package var output: Data {
            switch self {
            case .frame(let png): png
            case .noVideo(let reason), .unreadable(let reason), .tooLarge(let reason): Data(reason.prefix(500).utf8)
            }
        }
    }

    /// The child's arguments after ``VideoThumbnails/command``; with
    /// `meta`, it describes the streams (JSON) instead of decoding a frame.
    /// With `sprite`, it lays out many frames (a ``VideoSprite`` as JSON).
    package static func arguments(second: Double, keyframes: Bool, maxPixels: Int, maxMemory: Int, maxSeconds: Int, probeBytes: Int,
                                 meta: Bool = false, sprite: String? = nil) -> [String] {
        ["--second", "\(second)", "--max-pixels", "\(maxPixels)", "--max-memory", "\(maxMemory)", "--max-seconds", "\(maxSeconds)",
         "--probe-bytes", "\(probeBytes)"] + (keyframes ? ["--keyframes"] : []) + (meta ? ["--meta"] : [])
            + (sprite.map { ["--sprite=" + $0] } ?? [])
    }
}

/// A video's container tags and streams, as imgproxy Pro's `/info` answers
/// them (`video_meta`, `video_streams`).
public struct VideoMetadata: Sendable, Hashable, Codable {
    public var tags: [String: String]
    public var streams: [VideoStream]

    package init(tags: [String: String], streams: [VideoStream]) {
        (self.tags, self.streams) = (tags, streams)
    }
}

/// One stream of a video, by Pro's keys; what is unknown is left out.
public struct VideoStream: Sendable, Hashable, Codable {
    public var type: String
    public var codec: String
    public var duration: Double?
    public var bps: Int?
    public var fps: Double?
    public var frequency: Int?
    public var layout: String?
    public var language: String?

    package init(type: String, codec: String, duration: Double?, bps: Int?, fps: Double?, frequency: Int?, layout: String?, language: String?) {
        (self.type, self.codec, self.duration, self.bps, self.fps) = (type, codec, duration, bps, fps)
        (self.frequency, self.layout, self.language) = (frequency, layout, language)
    }
}
