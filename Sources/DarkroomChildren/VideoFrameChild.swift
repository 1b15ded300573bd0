package import Darkroom
import DarkroomImaging
package import Foundation

/// What the child process that reads a video runs (`darkroom
/// render-video-frame`): linked by the executable only, never by the library.
extension VideoFrameDrawing {
    /// The container's tags and streams as ``VideoMetadata`` JSON, in
    /// ``Outcome/frame(_:)``'s place. Call it only in the child.
    package static func describe(_ video: Data, probeBytes: Int) -> Outcome {
        switch VideoFrames.describe([UInt8](video), probeBytes: probeBytes) {
        case .success(let described):
            // Bounded: tags are a stranger's text.
            let tags = described.tags.prefix(100).map { (String($0.0.prefix(100)), String($0.1.prefix(1000))) }
            let metadata = VideoMetadata(tags: Dictionary(tags, uniquingKeysWith: { first, _ in first }),
                                         streams: described.streams.prefix(100).map(VideoStream.init))
            guard let json = try? JSONEncoder().encode(metadata) else { return .unreadable("the streams could not be written") }
            return .frame(json)
        case .failure(.noVideo(let reason)), .failure(.unreadable(let reason)), .failure(.tooLarge(let reason)):
            return .unreadable(reason)
        }
    }

    /// Decodes the frame at `second` of `video` as an uncompressed PNG.
    /// Call it only in a process of its own, with its limits set: it runs
    /// FFmpeg's demuxers and decoders on the bytes.
    package static func draw(_ video: Data, second: Double, keyframes: Bool, maxPixels: Int, probeBytes: Int) -> Outcome {
        switch VideoFrames.frame([UInt8](video), second: second, keyframes: keyframes, maxPixels: maxPixels, probeBytes: probeBytes) {
        case .success((_, let pixels?)):
            do {
                return .frame(Data(try pixels.storedPNG()))
            } catch {
                return .unreadable(error.message)
            }
        case .success((_, nil)):
            return .unreadable("no frame was decoded")
        case .failure(.noVideo(let reason)):
            return .noVideo(reason)
        case .failure(.tooLarge(let reason)):
            return .tooLarge(reason)
        case .failure(.unreadable(let reason)):
            return .unreadable(reason)
        }
    }
}

extension VideoStream {
    init(_ stream: VideoFrames.Stream) {
        self.init(type: stream.type, codec: stream.codec, duration: stream.duration > 0 ? stream.duration : nil,
                  bps: stream.bitsPerSecond > 0 ? stream.bitsPerSecond : nil, fps: stream.framesPerSecond > 0 ? stream.framesPerSecond : nil,
                  frequency: stream.frequency > 0 ? stream.frequency : nil, layout: stream.layout.isEmpty ? nil : stream.layout,
                  language: stream.language.isEmpty || stream.language == "und" ? nil : stream.language)
    }
}
