import DarkroomImaging
import Foundation
import Synchronization

/// Makes photobooks: every photo resized and cropped to one page size,
/// concurrently, then bound in order into one PDF (the seed's
/// PhotobookCreator, S10).
///
/// ```swift
/// let book = Photobook(pipeline: pipeline)
/// let job = book.start(request, to: "book.pdf")
/// for await step in job.progress { ... }
/// let result = try await job.result
/// ```
///
/// - Pages are asked of the pipeline at the request's priority, as any
///   image is; each is a JPEG of the page's pixel size, embedded in the PDF
///   as it is.
/// - Pages are written as soon as the next one in order is ready, and no
///   more are prepared ahead than the window allows, so memory stays bounded
///   whatever the number of pages.
/// - Cancelling stops all page work (waiting pages never start) and leaves
///   no file: the PDF is written to a temporary file and renamed at the end.
public struct Photobook: Sendable {
    public let pipeline: ImagePipeline
    /// How many pages may be prepared ahead of the one being written.
    public var window: Int

    public init(pipeline: ImagePipeline, window: Int? = nil) {
        self.pipeline = pipeline
        self.window = window ?? max(2, pipeline.filtrationQueue.maxConcurrent * 2)
    }

    /// Starts making a book.
    public func start(_ request: PhotobookRequest, to path: String) -> PhotobookJob {
        let (progress, continuation) = AsyncStream.makeStream(of: PhotobookProgress.self, bufferingPolicy: .bufferingNewest(64))
        let task = Task { () throws -> PhotobookResult in
            do throws(DarkroomError) {
                let result = try await make(request, to: path) { continuation.yield($0) }
                continuation.yield(.done(result))
                continuation.finish()
                return result
            } catch {
                continuation.finish()
                throw error
            }
        }
        return PhotobookJob(progress: progress, task: task)
    }

    /// Makes a book, reporting each step to `progress`.
    public func make(_ request: PhotobookRequest, to path: String,
                     progress: @escaping @Sendable (PhotobookProgress) -> Void = { _ in }) async throws(DarkroomError) -> PhotobookResult {
        guard !request.photos.isEmpty else { throw .invalidOption("a photobook needs at least one photo") }
        guard request.dpi >= 10, request.dpi <= 1200 else { throw .invalidOption("dpi \(request.dpi) is outside 10...1200") }
        guard (1...100).contains(request.quality) else { throw .invalidOption("quality \(request.quality) is outside 1...100") }
        let layout = try PageLayout(request)
        let destination = URL(fileURLWithPath: path)
        let temporary = destination.deletingLastPathComponent()
            .appendingPathComponent(".\(destination.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let writer = try await BookWriter.open(temporary.path, layout: layout)
        do throws(DarkroomError) {
            let result = try await bind(request, layout: layout, writer: writer, progress: progress)
            let bytes = try await writer.finish(movingTo: destination.path)
            await writer.close()
            return PhotobookResult(path: path, bytes: bytes, pages: result.pages.count, pageJPEGBytes: result.pages, skipped: result.skipped)
        } catch {
            await writer.abandon()
            await writer.close()
            throw error
        }
    }

    /// Prepares pages in a sliding window and writes them in order.
    private func bind(_ request: PhotobookRequest, layout: PageLayout, writer: BookWriter,
                      progress: @escaping @Sendable (PhotobookProgress) -> Void) async throws(DarkroomError) -> (pages: [Int], skipped: [PhotobookResult.Skipped]) {
        let total = request.photos.count
        do {
            return try await withThrowingTaskGroup(of: (Int, Result<PreparedPage, DarkroomError>).self) { group in
                var started = 0, written = 0, prepared = 0
                var ready: [Int: Result<PreparedPage, DarkroomError>] = [:]
                var pages: [Int] = [], skipped: [PhotobookResult.Skipped] = []
                func startNext() {
                    guard started < total, started < written + window else { return }
                    let index = started
                    started += 1
                    group.addTask { (index, await prepare(request.photos[index], request: request, layout: layout)) }
                }
                for _ in 0..<window { startNext() }
                while written < total {
                    guard let (index, result) = try await group.next() else { break }
                    prepared += 1
                    progress(.preparing(done: prepared, total: total))
                    ready[index] = result
                    while let next = ready.removeValue(forKey: written) {
                        let photo = request.photos[written]
                        switch next {
                        case .success(let page):
                            try await writer.add(page, caption: request.captions ? photo.name : nil)
                            pages.append(page.jpeg.count)
                        case .failure(let error) where error.kind == .cancelled:
                            throw error
                        case .failure(let error):
                            guard request.skipFailed else {
                                throw DarkroomError(error.kind, "photo '\(photo.name)' failed: \(error.reason)", underlying: error.underlying)
                            }
                            skipped.append(.init(name: photo.name, reason: error.reason))
                        }
                        written += 1
                        progress(.writing(written: written, total: total))
                        startNext()
                    }
                }
                return (pages, skipped)
            }
        } catch {
            throw error as? DarkroomError ?? .cancelled
        }
    }

    /// One page: the photo resized and cropped to the page, asked of the
    /// pipeline like any other image, so that it shares its coalescing,
    /// admission, byte window and caches.
    private func prepare(_ photo: PhotobookRequest.Photo, request: PhotobookRequest, layout: PageLayout) async -> Result<PreparedPage, DarkroomError> {
        do throws(DarkroomError) {
            if Task.isCancelled { throw .cancelled }
            var operations: [ImageOperation] = [.resize(Resize(width: layout.imageArea.width, height: layout.imageArea.height,
                                                               mode: request.fit == .fit ? .fit : .fill, enlarge: true))]
            if let filter = request.filter { operations.append(filter) }
            let options = ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg, quality: request.quality),
                                            limits: request.limits)
            let source: ImageSource
            switch photo.source {
            case .file(let path):
                let data: Data
                do {
                    data = try await pipeline.io.run { try Data(contentsOf: URL(fileURLWithPath: path)) }
                } catch is CancellationError {
                    // The book was cancelled while the file was being read.
                    throw .cancelled
                } catch {
                    throw DarkroomError(.invalidOption, "cannot read \(path)", underlying: "\((error as NSError).localizedDescription)")
                }
                // Named by its bytes: a file changed since is a new source.
                source = .data(data, key: "file:" + Hashsum.hex(of: data, .sha256))
            case .url(let url):
                source = .url(url)
            }
            let image = try await pipeline.image(for: ImageRequest(source: source, options: options, priority: request.priority)).image
            return .success(PreparedPage(jpeg: [UInt8](image.data), width: image.width, height: image.height))
        } catch {
            return .failure(error)
        }
    }
}

/// A running photobook: its progress, its result, and a way to cancel it.
public struct PhotobookJob: Sendable {
    /// Pages prepared, pages written, then done. Ends after the last step.
    public let progress: AsyncStream<PhotobookProgress>
    let task: Task<PhotobookResult, any Error>

    public var result: PhotobookResult {
        get async throws(DarkroomError) {
            do { return try await task.value } catch { throw error as? DarkroomError ?? .cancelled }
        }
    }

    public func cancel() { task.cancel() }
}

struct PreparedPage: Sendable {
    var jpeg: [UInt8]
    var width: Int
    var height: Int
}
