import ArgumentParser
import Darkroom
import Foundation

/// `darkroom encode-image`: the child process that writes one HEIC answer,
/// or a large AVIF one (hidden: the server and the other commands run it).
/// The pixels come on standard input as an uncompressed PNG and the answer
/// leaves on standard output; the process limits its own address space and
/// CPU time and refuses itself sockets first, so that an encoder that
/// cannot be stopped mid-picture can only end this process. The exit
/// status says how it went (see ``ImageEncoding/Outcome``).
struct EncodeImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode-image",
        abstract: "Write the PNG on standard input as HEIC or AVIF on standard output (run by serve, process, fetch and book).",
        shouldDisplay: false
    )

    @Option(help: "heic or avif.") var format: String
    @Option(help: "The quality, 1...100.") var quality: Int
    @Option(help: "AVIF's effort, 0...9.") var effort = 1
    @Option(help: "AVIF's chroma: 0 auto, 1 subsampled, 2 full.") var subsample = 0
    @Option(help: "The most memory this process maps, in bytes.") var maxMemory = 2 << 30
    @Option(help: "The most CPU seconds this process uses, every thread's together.") var maxSeconds = 40

    func run() throws {
        guard let format = ImageFormat(rawValue: format), ImageEncoding.formats.contains(format), (1...100).contains(quality),
              (0...9).contains(effort), (0...2).contains(subsample), ChildMemory.range.contains(maxMemory), (1...3600).contains(maxSeconds)
        else { throw ValidationError("out of range: --format heic or avif, --quality 1...100, --effort 0...9, --subsample 0...2, --max-memory, --max-seconds 1...3600") }
        // Limits first: nothing is read before they hold.
        try ChildLimits.apply(memory: maxMemory, seconds: maxSeconds)
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let outcome = ImageEncoding.encode(input, format: format, quality: quality, effort: effort, subsample: subsample)
        FileHandle.standardOutput.write(outcome.output)
        throw ExitCode(outcome.status)
    }
}
