import ArgumentParser
import Darkroom
import DarkroomChildren
import Foundation

/// `darkroom render-svg`: the child process that draws one SVG document
/// (hidden: the server and the other commands run it, people do not). The
/// sanitised document comes on standard input and the drawing leaves as
/// PNG on standard output; the process limits its own address space and
/// CPU time and refuses itself sockets first, so that librsvg on a hostile
/// document can only end this process. The exit status says how it went
/// (see ``SVGDocumentDrawing/Outcome``).
struct RenderSVGCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-svg",
        abstract: "Draw the SVG on standard input as PNG on standard output (run by serve, process, fetch and book).",
        shouldDisplay: false
    )

    @Option(help: "The plan of the drawing's scale, as JSON: the run's first resize, whose box the drawing meets, and the steps before it.") var plan: String?
    @Option(help: "The result limit the resize is measured under.") var maxResultDimension = 8192
    @Option(help: "The most pixels the drawing may have.") var maxPixels = 50_000_000
    @Option(help: "The most memory this process maps, in bytes.") var maxMemory = 1 << 30
    @Option(help: "The most CPU seconds this process uses.") var maxSeconds = 20

    func run() throws {
        guard maxPixels >= 1, (1...100_000).contains(maxResultDimension), ChildMemory.range.contains(maxMemory), (1...3600).contains(maxSeconds)
        else { throw ValidationError("out of range: --max-pixels, --max-result-dimension 1...100000, --max-memory, --max-seconds 1...3600") }
        let plan = try plan.map { text in
            guard let plan = VectorDrawingOutput.plan(from: text) else { throw ValidationError("--plan is not a drawing's plan") }
            return plan
        }
        // Limits first: nothing of the document is read before they hold.
        try ChildLimits.apply(memory: maxMemory, seconds: maxSeconds)
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let outcome = SVGDocumentDrawing.draw(input, plan: plan, maxResultDimension: maxResultDimension, maxPixels: maxPixels)
        FileHandle.standardOutput.write(outcome.output)
        throw ExitCode(outcome.status)
    }
}
