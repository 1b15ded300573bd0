@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Video sources: refused unless turned on; then one frame decoded by a
/// child process under its own memory and CPU limits, and the deadline.
@Suite(.offCooperativePool) struct VideoFrameTests {
    func options(second: Double? = nil, keyframes: Bool? = nil, configure: (inout ImageLimits) -> Void = { _ in }) -> ProcessingOptions {
        var options = ProcessingOptions(output: OutputOptions(format: .png))
        options.limits.videoThumbnails = VideoThumbnails(command: [DarkroomProcess.binary.path, "render-video-frame"])
        (options.videoSecond, options.videoKeyframes) = (second, keyframes)
        configure(&options.limits)
        return options.unhurried
    }

    /// The colour of the answer's middle pixel, as its strongest channel.
    func colour(_ data: Data, _ options: ProcessingOptions) throws -> String {
        let pixel = try pixels(of: try ImageProcessor.processBlocking(data, options: options)).pixel(x: 80, y: 60).map(Int.init)
        let names = ["red", "green", "blue"]
        return names[pixel.indices.max { pixel[$0] < pixel[$1] }!]
    }

    @Test func refusedUnlessTurnedOn() throws {
        let video = try TestVideo.threeColours()
        let refused = refusal(video, ProcessingOptions(output: OutputOptions(format: .png)))
        #expect(refused?.kind == .notAnImage && refused?.reason.contains("--video-thumbnails") == true, "\(String(describing: refused))")
    }

    @Test func theFrameAtTheSecondAsked() throws {
        let video = try TestVideo.threeColours()
        #expect(try colour(video, options(second: 0)) == "red")
        #expect(try colour(video, options(second: 1.5)) == "blue")
        #expect(try colour(video, options(second: 2.5)) == "green")
        #expect(try colour(video, options()) == "blue", "the server's second, 1 by default")
        #expect(try colour(video, options(second: 60)) == "green", "past the end: the last frame")
        // Keyframes: the one keyframe, at the start.
        #expect(try colour(video, options(second: 2.5, keyframes: true)) == "red")
        #expect(try colour(video, options { $0.videoThumbnails?.keyframes = true }) == "red")
        let frame = try ImageProcessor.processBlocking(video, options: options())
        #expect(frame.width == 160 && frame.height == 120 && frame.format == .png)
    }

    @Test(arguments: [("webm", ["-c:v", "libvpx", "-b:v", "200k"]), ("mkv", ["-c:v", "mpeg4"]), ("avi", ["-c:v", "mpeg4"]), ("mov", ["-c:v", "mjpeg"])])
    func containersAndCodecs(fileExtension: String, codec: [String]) throws {
        let video = try TestVideo.threeColours(codec: codec, fileExtension: fileExtension)
        #expect(try colour(video, options(second: 1.5)) == "blue", "\(fileExtension)")
    }

    @Test func framesOverThePixelLimitAreRefusedBeforeDecoding() throws {
        let video = try TestVideo.threeColours()
        let refused = refusal(video, options { $0.maxSourcePixels = 10_000 })
        #expect(refused?.kind == .tooManyPixels, "\(String(describing: refused))")
    }

    @Test func damagedAndEmptyVideosAreRefusedWithAReason() throws {
        let video = try TestVideo.threeColours()
        // The index (moov) is at the end: without it nothing can be read.
        let cut = refusal(Data(video.prefix(video.count / 2)), options())
        #expect(cut?.kind == .corruptImage && cut?.reason.contains("video") == true, "\(String(describing: cut))")
        var garbage = Data(video.prefix(32))
        garbage.append(Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }))
        #expect(refusal(garbage, options())?.kind == .corruptImage)
        // Sound only: no video to answer with.
        let sound = try TestVideo.make(["-f", "lavfi", "-i", "sine=frequency=440:duration=1", "-c:a", "aac"], fileExtension: "mp4")
        #expect(refusal(sound, options())?.kind == .notAnImage)
    }

    /// A file with Matroska's magic whose body is an SDP session (which
    /// FFmpeg's SDP demuxer would answer by binding a UDP port for each
    /// media line and waiting for packets) is read as Matroska only, and
    /// refused at once as a damaged video, not left to wait for a network.
    @Test func aContainerIsReadOnlyByTheDemuxerItsMagicNames() throws {
        var hostile = Data([0x1A, 0x45, 0xDF, 0xA3, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00])
        var session = "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=x\nc=IN IP4 127.0.0.1\nt=0 0\n"
        for port in stride(from: 40_000, to: 40_400, by: 2) { session += "m=video \(port) RTP/AVP 96\na=rtpmap:96 H264/90000\n" }
        hostile.append(Data(session.utf8))
        let refused = refusal(hostile, options())
        #expect(refused?.kind == .corruptImage || refused?.kind == .notAnImage, "\(String(describing: refused))")
    }

    /// Every frame of 30 s of 720p stands between the start and the time
    /// asked (one keyframe): the deadline ends the child, and the next
    /// video is answered.
    @Test func aLongDecodeIsStoppedAtTheDeadline() throws {
        let long = try TestVideo.make(["-f", "lavfi", "-i", "testsrc2=size=1280x720:rate=30:duration=30", "-c:v", "libx264", "-preset", "ultrafast",
                                       "-g", "100000", "-pix_fmt", "yuv420p"], fileExtension: "mp4")
        var bounded = options(second: 29.9)
        bounded.limits.maxProcessingTime = .milliseconds(500)
        let started = ContinuousClock.now
        let refused = refusal(long, bounded)
        #expect(refused?.kind == .processingTimedOut, "\(String(describing: refused))")
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try colour(try TestVideo.threeColours(), options(second: 0)) == "red")
    }
}
