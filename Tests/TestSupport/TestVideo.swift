public import Foundation

/// Videos made by FFmpeg's `ffmpeg` command from its own test sources, for
/// the video tests.
public enum TestVideo {
    /// The file `ffmpeg` writes for these arguments (inputs, codecs),
    /// named with `fileExtension` so that it picks the container.
    public static func make(_ arguments: [String], fileExtension: String) throws -> Data {
        let folder = try Fixtures.temporaryFolder("darkroom-video")
        defer { try? FileManager.default.removeItem(at: folder) }
        let output = folder.appendingPathComponent("video.\(fileExtension)")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-loglevel", "error", "-y"] + arguments + [output.path]
        let errors = Pipe()
        process.standardError = errors
        process.environment = TiedProcess.environment()
        try TiedProcess.run(process)
        let said = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(message: "ffmpeg \(arguments.joined(separator: " ")): \(String(decoding: said, as: UTF8.self))")
        }
        return try Data(contentsOf: output)
    }

    /// Three seconds of solid colour, 160 x 120 at 10 frames a second:
    /// red, then blue, then green; one keyframe, at the start (no keyframe
    /// at the changes of scene).
    public static func threeColours(codec: [String] = ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "1000", "-sc_threshold", "0"], fileExtension: String = "mp4") throws -> Data {
        let inputs = ["red", "blue", "green"].flatMap { ["-f", "lavfi", "-i", "color=c=\($0):s=160x120:r=10:d=1"] }
        return try make(inputs + ["-filter_complex", "[0][1][2]concat=n=3:v=1:a=0"] + codec, fileExtension: fileExtension)
    }

    public struct Failure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
