import ArgumentParser
import CSandbox
import Darkroom
import Dispatch
import Foundation
import Synchronization
import DarkroomImaging

/// `darkroom book`: photos into a PDF photobook.
struct BookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "book",
        abstract: "Bind photos into a PDF photobook, one photo a page.",
        discussion: """
        Every photo is resized and cropped to the page concurrently, then the pages \
        are bound in the order given; each page's JPEG is embedded as it is. Ctrl-C \
        cancels and leaves no file. Exit code: 0 on success, 1 when photos were \
        skipped (--skip-failed) or the book failed, 2 for a usage error.
        """
    )

    @Argument(help: "Image files (or http(s) URLs), in page order.")
    var inputs: [String] = []

    @Option(name: .long, help: "A photo list (file or URL) instead of inputs.")
    var list: String?

    @Option(name: [.customShort("o"), .long], help: "The PDF to write.")
    var output: String

    @Option(name: .long, help: "Page size: A4, Letter, or WxH in pixels.")
    var page = "A4"

    @Option(name: .long, help: "Pixels per inch of the pages' images.")
    var dpi: Double = 150

    @Option(name: .long, help: "fill (crop to fill the page) or fit (the whole photo).")
    var fit: Resize.Mode = .fill

    @Option(name: .long, help: "White space around each photo, in millimetres.")
    var margin: Double = 0

    @Option(name: .long, help: ArgumentHelp("A filter for every page: sepia[:I], grayscale, blur:S, sharpen[:S].", valueName: "NAME[:ARG]"))
    var filter: String?

    @Flag(name: .long, help: "Print each photo's name under it.")
    var captions = false

    @Option(name: .long, help: "JPEG quality of the pages, 1...100.")
    var quality = 85

    @Flag(name: .long, help: "Leave out photos that fail, instead of failing the book.")
    var skipFailed = false

    @Option(name: .long, help: "Pages prepared at once (default: one per core).")
    var workers = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .long, help: "Disk cache folder, for photos given as URLs.")
    var cacheDir: String?

    @Option(name: .long, help: "Seconds one page's photo may take to prepare before it is stopped, 1...3600 (default 20). [DARKROOM_MAX_PROCESSING_SECONDS]")
    var maxProcessingSeconds: Int?

    @Option(name: .long, help: "Memory one page's photo may hold while it is prepared, in MiB, 16...65536 (default: as darkroom serve's). [DARKROOM_MAX_REQUEST_MEMORY_MB]")
    var maxRequestMemoryMb: Int?

    @Flag(name: .customLong("svg-render"), inversion: .prefixedNo, help: "Draw SVG photos with librsvg, in a sandboxed child process (on by default).")
    var svgRender = true

    func validate() throws {
        guard inputs.isEmpty != (list == nil) else { throw ValidationError("give either input files or --list, not both and not neither") }
        guard PhotobookRequest.PageSize(page) != nil else { throw ValidationError("--page \(page): expected A4, Letter or WxH in pixels") }
        guard (10...1200).contains(dpi) else { throw ValidationError("--dpi must be from 10 to 1200") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be from 1 to 100") }
        guard margin.isFinite, (0...1000).contains(margin) else { throw ValidationError("--margin must be from 0 to 1000 (millimetres)") }
        guard workers >= 1 else { throw ValidationError("--workers must be at least 1") }
        _ = try ProcessingFlags.processingTime(maxProcessingSeconds)
        _ = try ProcessingFlags.memoryBudget(maxRequestMemoryMb)
        guard fit == .fill || fit == .fit else { throw ValidationError("--fit must be fill or fit") }
        if let filter {
            do { _ = try ImageOperation(filter: filter) } catch { throw ValidationError("--filter \(filter): \(error.reason)") }
        }
    }

    func run() async throws {
        var photos: [PhotobookRequest.Photo]
        if let list {
            do {
                photos = try await PhotoList.load(from: list).entries.compactMap { entry in
                    entry.url.map { PhotobookRequest.Photo(name: entry.name, source: .url($0)) }
                }
            } catch {
                Terminal.error(error.description)
                throw ExitCode(2)
            }
        } else {
            photos = inputs.map { input in
                let name = URL(fileURLWithPath: input).deletingPathExtension().lastPathComponent
                if let url = URL(string: input), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                    return PhotobookRequest.Photo(name: name, source: .url(url))
                }
                return PhotobookRequest.Photo(name: name, source: .file(input))
            }
        }
        var request = PhotobookRequest(photos: photos)
        request.page = PhotobookRequest.PageSize(page)!
        request.dpi = dpi
        request.fit = fit
        request.margin = margin
        request.filter = try filter.map { try ImageOperation(filter: $0) }
        request.captions = captions
        request.quality = quality
        request.skipFailed = skipFailed
        request.limits.maxProcessingTime = try ProcessingFlags.processingTime(maxProcessingSeconds)
        request.limits.maxDecodeMemory = try ProcessingFlags.memoryBudget(maxRequestMemoryMb)
        request.limits.svgDrawing = svgRender ? DrawingChild.svg : nil
        request.limits.encodingChild = DrawingChild.encoder

        var configuration = ImagePipeline.Configuration()
        configuration.filtrationConcurrency = workers
        configuration.memoryCache.costLimit = 64 << 20
        configuration.diskCache = cacheDir.map { DiskCache.Configuration(folder: URL(fileURLWithPath: $0)) } ?? configuration.diskCache
        let outcome = try await withImagePipeline(configuration: configuration) { pipeline in
            // Ctrl-C cancels the book: no partial file is left. The handler
            // is in place before the job starts, and notes the interrupt at
            // once (a dispatch source is registered later, on libdispatch's
            // own thread: an interrupt before that was lost, on a busy
            // machine); a watcher cancels the job when it sees it.
            guard darkroom_catch_interrupt() == 0 else { throw ExitCode(2) }
            let job = Photobook(pipeline: pipeline).start(request, to: output)
            let watcher = Task {
                while !Task.isCancelled {
                    if darkroom_was_interrupted() != 0 {
                        job.cancel()
                        return
                    }
                    try? await Task.sleep(for: .milliseconds(20))
                }
            }
            defer { watcher.cancel() }

            let interactive = Terminal.isInteractive
            for await step in job.progress where interactive {
                if case .writing(let written, let total) = step {
                    let filled = 30 * written / max(total, 1)
                    let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: 30 - filled)
                    FileHandle.standardError.write(Data("\r[\(bar)] \(written)/\(total) pages".utf8))
                }
            }
            if interactive { FileHandle.standardError.write(Data("\n".utf8)) }
            do {
                return Result<PhotobookResult, DarkroomError>.success(try await job.result)
            } catch {
                return .failure(error as? DarkroomError ?? .cancelled)
            }
        }
        switch outcome {
        case .success(let result):
            print("\(result.path): \(result.pages) pages, \(ByteCountFormatter.string(fromByteCount: Int64(result.bytes), countStyle: .file))")
            for skipped in result.skipped { Terminal.error("skipped \(skipped.name): \(skipped.reason)") }
            if !result.skipped.isEmpty { throw ExitCode(1) }
        case .failure(let error):
            Terminal.error(error.kind == .cancelled ? "cancelled; no photobook was written" : error.description)
            throw ExitCode(1)
        }
    }
}
