#if Video
internal import CVideo
#endif
internal import CVips
#if canImport(Glibc)
import Glibc
#endif

/// A video's first video stream and one of its frames, by FFmpeg's
/// libraries. For the child process that draws video frames only: the
/// demuxers and decoders run on a stranger's bytes.
package enum VideoFrames {
    package struct Meta: Sendable, Equatable {
        package var width: Int
        package var height: Int
        /// Seconds; 0 where the container does not say.
        package var duration: Double
        package var frameRate: Double
        package var codec: String
        package var container: String
    }

    package enum Failure: Error, Equatable {
        case unreadable(String)
        case noVideo(String)
        case tooLarge(String)
    }

    /// The stream's facts and, with `decode`, the frame at `second` (the
    /// keyframe at or before it with `keyframes`) as RGB pixels.
    package static func frame(_ data: [UInt8], second: Double, keyframes: Bool, maxPixels: Int, probeBytes: Int,
                              decode: Bool = true) -> Result<(Meta, RawPixels?), Failure> {
        var frame: RawPixels?
        return frames(data, seconds: decode ? [second] : [], keyframes: keyframes, maxPixels: maxPixels, probeBytes: probeBytes) { _, pixels in
            frame = pixels
            return true
        }.map { ($0, frame) }
    }

    /// The stream's facts, and the frame at each of `seconds` (in their
    /// order, one at a time; the keyframe at or before each with
    /// `keyframes`) handed to `each` with its index as RGB pixels; `each`
    /// returns false to stop, which fails the read.
    package static func frames(_ data: [UInt8], seconds: [Double], keyframes: Bool, maxPixels: Int, probeBytes: Int,
                               each: (Int, RawPixels) -> Bool) -> Result<Meta, Failure> {
        #if Video
        var meta = darkroom_video_meta()
        var message = [CChar](repeating: 0, count: 256)
        let code = withoutActuallyEscaping(each) { each in
            let sink = Sink(each)
            return withExtendedLifetime(sink) {
                data.withUnsafeBufferPointer { buffer in
                    darkroom_video_frames(buffer.baseAddress, buffer.count, seconds, Int32(seconds.count), keyframes ? 1 : 0, Int64(maxPixels),
                                          Int64(probeBytes), &meta, Unmanaged.passUnretained(sink).toOpaque(), { context, index, rgb, width, height in
                        guard let context, let rgb, width > 0, height > 0 else { return 0 }
                        let count = Int(width) * Int(height) * 3
                        let pixels = RawPixels(width: Int(width), height: Int(height), bands: 3, bytes: Array(UnsafeBufferPointer(start: rgb, count: count)))
                        return Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue().each(Int(index), pixels) ? 1 : 0
                    }, &message, Int32(message.count))
                }
            }
        }
        let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch code {
        case 0: break
        case -2: return .failure(.noVideo(reason))
        case -3: return .failure(.tooLarge(reason))
        default: return .failure(.unreadable(reason))
        }
        return .success(Meta(width: Int(meta.width), height: Int(meta.height), duration: meta.duration, frameRate: meta.frame_rate,
                             codec: Self.text(meta.codec), container: Self.text(meta.container)))
        #else
        return .failure(.unreadable(Self.notInThisBuild))
        #endif
    }

    private final class Sink {
        let each: (Int, RawPixels) -> Bool
        init(_ each: @escaping (Int, RawPixels) -> Bool) { self.each = each }
    }

    /// Whether this build reads videos (the package's `Video` trait).
    #if Video
    package static let isAvailable = true
    #else
    package static let isAvailable = false
    #endif

    package static let notInThisBuild = "video frames are not in this build of Darkroom (built without its Video trait)"

    /// One stream of the container.
    package struct Stream: Sendable, Equatable {
        package var type: String
        package var codec: String
        package var duration: Double
        package var bitsPerSecond: Int
        package var framesPerSecond: Double
        package var frequency: Int
        package var layout: String
        package var language: String
    }

    /// The container's tags, in its order, and its streams; nothing decoded.
    package static func describe(_ data: [UInt8], probeBytes: Int) -> Result<(tags: [(String, String)], streams: [Stream]), Failure> {
        #if Video
        let collected = Collected()
        var message = [CChar](repeating: 0, count: 256)
        let code = withExtendedLifetime(collected) {
            data.withUnsafeBufferPointer { buffer in
                darkroom_video_describe(buffer.baseAddress, buffer.count, Int64(probeBytes), Unmanaged.passUnretained(collected).toOpaque(), { context, key, value in
                    guard let context, let key, let value else { return }
                    Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().tags.append((String(cString: key), String(cString: value)))
                }, { context, info in
                    guard let context, let info else { return }
                    let i = info.pointee
                    let stream = Stream(type: VideoFrames.text(i.type), codec: VideoFrames.text(i.codec), duration: i.duration,
                                        bitsPerSecond: Int(i.bps), framesPerSecond: i.fps, frequency: Int(i.frequency),
                                        layout: VideoFrames.text(i.layout), language: VideoFrames.text(i.language))
                    Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue().streams.append(stream)
                }, &message, Int32(message.count))
            }
        }
        guard code == 0 else {
            return .failure(.unreadable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)))
        }
        return .success((collected.tags, collected.streams))
        #else
        return .failure(.unreadable(Self.notInThisBuild))
        #endif
    }

    private final class Collected {
        var tags: [(String, String)] = []
        var streams: [Stream] = []
    }

    static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }
}
