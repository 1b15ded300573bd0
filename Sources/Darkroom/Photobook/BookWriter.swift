import DarkroomImaging
import Foundation

/// The PDF being written, on a thread of its own: cairo objects are not
/// thread-safe, so every call to the writer runs on one executor thread.
final class BookWriter: @unchecked Sendable {
    // Safe: `pdf` is only touched inside `executor.run`, whose pool has one thread.
    private let pdf: PDFWriter
    private let executor: BlockingExecutor
    private let layout: PageLayout

    private init(pdf: PDFWriter, executor: BlockingExecutor, layout: PageLayout) {
        self.pdf = pdf
        self.executor = executor
        self.layout = layout
    }

    static func open(_ path: String, layout: PageLayout) async throws(DarkroomError) -> BookWriter {
        let executor = BlockingExecutor(threads: 1)
        do {
            let pdf = try await executor.run { () throws -> UnsafeTransfer<PDFWriter> in
                UnsafeTransfer(try PDFWriter(path: path, pageWidth: layout.pageWidthPoints, pageHeight: layout.pageHeightPoints))
            }
            return BookWriter(pdf: pdf.value, executor: executor, layout: layout)
        } catch {
            throw DarkroomError(.processingFailed, "cannot write a PDF at \(path)", underlying: "\(error)")
        }
    }

    func add(_ page: PreparedPage, caption: String?) async throws(DarkroomError) {
        let rect = layout.rectangle(width: page.width, height: page.height)
        let baseline = layout.captionBaseline, pdf = UnsafeTransfer(self.pdf)
        do {
            try await executor.run {
                try pdf.value.addPage(jpeg: page.jpeg, width: page.width, height: page.height, x: rect.x, y: rect.y, w: rect.w, h: rect.h,
                                      caption: caption, captionY: baseline, captionSize: 11)
            }
        } catch {
            throw DarkroomError(.processingFailed, "a page could not be written", underlying: "\(error)")
        }
    }

    func finish() async throws(DarkroomError) {
        let pdf = UnsafeTransfer(self.pdf)
        do {
            try await executor.run { try pdf.value.finish() }
        } catch {
            throw DarkroomError(.processingFailed, "the PDF could not be finished", underlying: "\(error)")
        }
        await executor.shutdown()
    }

    /// Stops without finishing (the temporary file is then removed).
    func abandon() async {
        await executor.shutdown()
    }
}

/// Moves a non-Sendable value between the writer's calls, all of which run
/// on its one thread.
struct UnsafeTransfer<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
