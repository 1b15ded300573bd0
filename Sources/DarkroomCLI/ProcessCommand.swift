import ArgumentParser
import Darkroom
import Foundation

/// `darkroom process INPUT... -o OUT`: process local image files.
struct ProcessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process",
        abstract: "Resize, filter and re-encode local image files.",
        discussion: """
        With one input, OUT is a file, or a folder if it exists or ends in '/'. \
        With several, OUT is a folder, created if needed. A bad input is reported \
        with its reason and the others still run. Exit code: 0 when all succeeded, \
        1 when any failed, 2 for a usage error.
        """
    )

    @Argument(help: "Image files to process.")
    var inputs: [String]

    @Option(name: [.customShort("o"), .long], help: "Output file or folder.")
    var output: String

    @OptionGroup var processing: ProcessingFlags

    @Option(name: .long, help: "How many images to process at once (default: one per core).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs must be at least 1") }
    }

    func run() async throws {
        let options = try processing.options(defaultFilters: [])
        let destinations = try OutputPlan.destinations(for: inputs, output: output, format: options.output.format)
        let processor = ImageProcessor(executor: BlockingExecutor(threads: jobs))

        let failures = await withTaskGroup(of: Bool.self) { group in
            var next = 0
            var failures = 0
            func startNext() {
                guard next < inputs.count else { return }
                let (input, destination) = (inputs[next], destinations[next])
                next += 1
                group.addTask { await Self.process(input, to: destination, options: options, processor: processor) }
            }
            for _ in 0..<min(jobs, inputs.count) { startNext() }
            for await succeeded in group {
                if !succeeded { failures += 1 }
                startNext()
            }
            return failures
        }
        if failures > 0 {
            Terminal.error("\(failures) of \(inputs.count) failed")
            throw ExitCode(1)
        }
    }

    /// Processes one file; reports the outcome; returns whether it worked.
    private static func process(_ input: String, to destination: OutputPlan.Destination, options: ProcessingOptions, processor: ImageProcessor) async -> Bool {
        let data: Data
        do {
            // File calls block: on a pool thread, not the cooperative pool.
            data = try await BlockingExecutor.shared.run { try Data(contentsOf: URL(fileURLWithPath: input)) }
        } catch {
            Terminal.error("\(input): cannot read the file (\((error as NSError).localizedDescription))")
            return false
        }
        do {
            let image = try await processor.process(data, options: options)
            let path = destination.path(for: image.format)
            try await BlockingExecutor.shared.run { try AtomicFile.write(image.data, to: path) }
            print("\(input) -> \(path) (\(image.width)x\(image.height) \(image.format.rawValue), \(ByteCountFormatter.string(fromByteCount: Int64(image.data.count), countStyle: .file)))")
            return true
        } catch let error as DarkroomError {
            Terminal.error("\(input): \(error)")
            return false
        } catch {
            Terminal.error("\(input): cannot write the output (\(error))")
            return false
        }
    }
}
