import ArgumentParser
import Darkroom
import Foundation

/// `darkroom encode-image`: the child process that writes one answer whose
/// encoder cannot be stopped (HEIC; large AVIF, GIF and WebP; hidden: the
/// server and the other commands run it).
/// The pixels come on standard input as an uncompressed PNG and the answer
/// leaves on standard output; the process limits its own address space and
/// CPU time and refuses itself sockets first, so that an encoder that
/// cannot be stopped mid-picture can only end this process. The exit
/// status says how it went (see ``ImageEncoding/Outcome``).
struct EncodeImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "encode-image",
        abstract: "Write the PNG on standard input as HEIC, AVIF, GIF or WebP on standard output (run by serve, process, fetch and book).",
        shouldDisplay: false
    )

    @Option(help: "The encoder and its settings, as JSON.") var encoder: String
    @Flag(help: "Write on the metadata the PNG carries (EXIF, XMP, the colour profile).") var keepMetadata = false
    @Option(help: "The EXIF copyright the answer keeps alone.") var copyright: String?
    @Option(help: "An animation's frame height, delays and loop count, as JSON.") var frames: String?
    @Option(help: "The most memory this process maps, in bytes.") var maxMemory = 2 << 30
    @Option(help: "The most CPU seconds this process uses, every thread's together.") var maxSeconds = 40

    func run() throws {
        guard encoder.utf8.count <= 4096, (copyright?.utf8.count ?? 0) <= 65536, (frames?.utf8.count ?? 0) <= 120_000, ChildMemory.range.contains(maxMemory), (1...3600).contains(maxSeconds)
        else { throw ValidationError("out of range: --encoder (at most 4096 bytes), --copyright (an EXIF field: at most 65536), --frames (at most 120000 bytes), --max-memory, --max-seconds 1...3600") }
        // Limits first: nothing is read before they hold.
        try ChildLimits.apply(memory: maxMemory, seconds: maxSeconds)
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let outcome = ImageEncoding.encode(input, encoder: encoder, keepsMetadata: keepMetadata, copyright: copyright, frames: frames)
        FileHandle.standardOutput.write(outcome.output)
        throw ExitCode(outcome.status)
    }
}
