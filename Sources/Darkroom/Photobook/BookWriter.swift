import DarkroomImaging
import Foundation
import NIOCore
import NIOPosix

/// The PDF being written, as an actor on a thread of its own: cairo objects
/// are not thread-safe, and its calls block, so they run on one dedicated
/// thread (the actor's executor), never on the cooperative pool.
///
/// The file is written under a temporary name beside the target and renamed
/// into place by ``finish(movingTo:)``; ``abandon()`` removes it.
actor BookWriter {
    private let thread: MultiThreadedEventLoopGroup
    private let loop: any EventLoop
    private let layout: PageLayout
    private let temporaryPath: String
    private var pdf: PDFWriter?

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.executor.asUnownedSerialExecutor() }

    private init(layout: PageLayout, temporaryPath: String) {
        thread = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        loop = thread.next()
        self.layout = layout
        self.temporaryPath = temporaryPath
    }

    /// Starts a PDF at `temporaryPath`.
    static func open(_ temporaryPath: String, layout: PageLayout) async throws(DarkroomError) -> BookWriter {
        let writer = BookWriter(layout: layout, temporaryPath: temporaryPath)
        do {
            try await writer.start()
        } catch {
            await writer.close()
            throw error
        }
        return writer
    }

    private func start() throws(DarkroomError) {
        do {
            pdf = try PDFWriter(path: temporaryPath, pageWidth: layout.pageWidthPoints, pageHeight: layout.pageHeightPoints)
        } catch {
            throw DarkroomError(.processingFailed, "cannot write a PDF at \(temporaryPath)", underlying: "\(error)")
        }
    }

    func add(_ page: PreparedPage, caption: String?) throws(DarkroomError) {
        guard let pdf else { throw DarkroomError(.processingFailed, "the PDF is not open") }
        let rect = layout.rectangle(width: page.width, height: page.height)
        do {
            try pdf.addPage(jpeg: page.jpeg, width: page.width, height: page.height, x: rect.x, y: rect.y, w: rect.w, h: rect.h,
                            caption: caption, captionY: layout.captionBaseline, captionSize: 11)
        } catch {
            throw DarkroomError(.processingFailed, "a page could not be written", underlying: "\(error)")
        }
    }

    /// Finishes the PDF and renames it to `path`; returns its size in bytes.
    func finish(movingTo path: String) throws(DarkroomError) -> Int {
        guard let pdf else { throw DarkroomError(.processingFailed, "the PDF is not open") }
        do {
            try pdf.finish()
        } catch {
            throw DarkroomError(.processingFailed, "the PDF could not be finished", underlying: "\(error)")
        }
        self.pdf = nil
        guard rename(temporaryPath, path) == 0 else {
            throw DarkroomError(.processingFailed, "the photobook could not be moved to \(path)")
        }
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : 0
    }

    /// Stops without finishing, and removes the temporary file.
    func abandon() {
        pdf = nil
        unlink(temporaryPath)
    }

    /// Stops the writer's thread. Called from outside the actor once its
    /// last call has returned.
    nonisolated func close() async {
        try? await thread.shutdownGracefully()
    }
}
