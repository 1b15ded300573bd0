import ArgumentParser
import Darkroom
import DarkroomChildren
import Foundation

/// `darkroom render-pdf-page`: the child process that draws one PDF page
/// for a server started with `--pdf` (hidden: the server runs it, people
/// do not). The PDF comes on standard input and the page leaves as PNG on
/// standard output; the process limits its own address space and CPU time
/// first, so that poppler on a hostile file can only end this process.
/// The exit status says how it went (see ``PDFPageDrawing/Outcome``).
struct RenderPDFPageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-pdf-page",
        abstract: "Draw one page of the PDF on standard input as PNG on standard output (run by `serve --pdf`).",
        shouldDisplay: false
    )

    @Option(help: "The page, from 0.") var page = 0
    @Option(help: "How many pages from it, stacked top to bottom.") var pages = 1
    @Option(help: "The plan of the drawing's scale, as JSON: the run's first resize and the steps before it.") var plan: String?
    @Option(help: "The result limit the resize is measured under.") var maxResultDimension = 8192
    @Option(help: "The most pixels the page is drawn at.") var maxPixels = 50_000_000
    @Option(help: "The most memory this process maps, in bytes.") var maxMemory = 1 << 30
    @Option(help: "The most CPU seconds this process uses.") var maxSeconds = 20
    @Flag(help: "Leave the page's background transparent.") var noBackground = false

    func run() throws {
        guard (0...100_000).contains(page), (1...PageSelection.maxCount).contains(pages), (1...100_000).contains(maxResultDimension),
              maxPixels >= 1, ChildMemory.range.contains(maxMemory), (1...3600).contains(maxSeconds)
        else { throw ValidationError("out of range: --page 0...100000, --max-result-dimension 1...100000, --max-pixels, --max-memory, --max-seconds 1...3600") }
        let plan = try plan.map { text in
            guard let plan = VectorDrawingOutput.plan(from: text) else { throw ValidationError("--plan is not a drawing's plan") }
            return plan
        }
        // Limits first: nothing of the PDF is read before they hold.
        try ChildLimits.apply(memory: maxMemory, seconds: maxSeconds)
        let input = FileHandle.standardInput.readDataToEndOfFile()
        let outcome = PDFPageDrawing.draw(input, page: page, pages: pages, plan: plan, maxResultDimension: maxResultDimension, maxPixels: maxPixels,
                                          background: !noBackground)
        FileHandle.standardOutput.write(outcome.output)
        throw ExitCode(outcome.status)
    }
}
