import ArgumentParser
import Darkroom
import DarkroomChildren
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `darkroom render-video-frame`: the child process that decodes one video
/// frame for a server started with `--video-thumbnails` (hidden: the server
/// runs it). The video comes on standard input and the frame leaves as PNG
/// on standard output; the process limits its own address space and CPU
/// time first, so that FFmpeg on a hostile file can only end this process.
/// The exit status says how it went (see ``VideoFrameDrawing/Outcome``).
struct RenderVideoFrameCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-video-frame",
        abstract: "Decode one frame of the video on standard input as PNG on standard output (run by `serve --video-thumbnails`).",
        shouldDisplay: false
    )

    @Option(help: "The frame's time, in seconds.") var second = 1.0
    @Flag(help: "The keyframe at or before that time.") var keyframes = false
    @Option(help: "The most pixels a frame may have.") var maxPixels = 50_000_000
    @Option(help: "The most memory this process maps, in bytes.") var maxMemory = 1 << 30
    @Option(help: "The most CPU seconds this process uses.") var maxSeconds = 20
    @Option(help: "The most bytes read to find the streams.") var probeBytes = 5_000_000
    @Flag(help: "Describe the container's tags and streams as JSON instead.") var meta = false
    @Option(help: "Lay out many frames as a sprite or stacked animation frames (a VideoSprite as JSON).") var sprite: String?

    func run() throws {
        guard VideoThumbnails.seconds.contains(second), maxPixels >= 1, ChildMemory.range.contains(maxMemory),
              (1...3600).contains(maxSeconds), VideoThumbnails.probeBytesRange.contains(probeBytes)
        else { throw ValidationError("out of range: --second 0...86400, --max-pixels, --max-memory, --max-seconds 1...3600, --probe-bytes") }
        let layout = try sprite.map { (text) throws -> VideoSprite in
            guard text.utf8.count <= 2_000, let layout = try? JSONDecoder().decode(VideoSprite.self, from: Data(text.utf8)) else {
                throw ValidationError("--sprite is not a sprite's JSON")
            }
            if let problem = layout.problem { throw ValidationError("--sprite: \(problem)") }
            return layout
        }
        try ChildLimits.apply(memory: maxMemory, seconds: maxSeconds)
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let outcome = if meta {
            VideoFrameDrawing.describe(input, probeBytes: probeBytes)
        } else if let layout {
            VideoFrameDrawing.drawSheet(input, sprite: layout, second: second, keyframes: keyframes, maxPixels: maxPixels, probeBytes: probeBytes)
        } else {
            VideoFrameDrawing.draw(input, second: second, keyframes: keyframes, maxPixels: maxPixels, probeBytes: probeBytes)
        }
        FileHandle.standardOutput.write(outcome.output)
        throw ExitCode(outcome.status)
    }
}
