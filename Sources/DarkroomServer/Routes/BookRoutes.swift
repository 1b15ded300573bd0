package import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// Photobook jobs: `POST /api/books`, `GET /api/books/{id}`, its events, its
/// PDF, and `DELETE` to cancel.
package struct BookRoutes: Sendable {
    let gallery: Gallery
    let books: BookJobs
    /// With URL signing on, a book takes rows of the gallery's list only:
    /// a list of source URLs would fetch and process anything, unsigned.
    let signing: Bool
    /// The server's limits, for each page's photo as for any image.
    let limits: ImageLimits

    /// What a client asks for: rows of the gallery's list, or source URLs.
    package struct BookOrder: Decodable {
        var rows: [Int]?
        var sources: [String]?
        var page: String?
        var fit: String?
        var filter: String?
        var captions: Bool?
        var margin: Double?
    }

    func add(to router: Router<ServerContext>) {
        router.post("/api/books") { request, context in
            let order = try await request.decode(as: BookOrder.self, context: context)
            if signing, !(order.sources ?? []).isEmpty {
                throw RouteError(.forbidden, "with URL signing on, a photobook takes rows of the gallery's list only, not sources")
            }
            switch self.photobookRequest(order) {
            case .failure(let message):
                throw RouteError(.badRequest, message)
            case .success(var bookRequest):
                bookRequest.limits = limits
                let client = context.channel.remoteAddress?.ipAddress ?? "unknown"
                let job: BookJob
                do throws(BookJobs.Refusal) {
                    job = try books.start(bookRequest, client: client, pipeline: gallery.pipeline)
                } catch {
                    throw RouteError(.tooManyRequests, error.message, headers: [.retryAfter: "10"])
                }
                var response = try GalleryRoutes.json(["id": job.id], status: .accepted)
                response.headers[.location] = "/api/books/\(job.id)"
                return response
            }
        }
        router.get("/api/books/{id}") { _, context in
            guard let job = books.job(try context.parameters.require("id")) else { throw RouteError(.notFound, "no such photobook") }
            return try GalleryRoutes.json(job.current)
        }
        router.get("/api/books/{id}/events") { _, context in
            guard let job = books.job(try context.parameters.require("id")) else { throw RouteError(.notFound, "no such photobook") }
            let updates = job.updates()
            let body = ResponseBody { writer in
                do {
                    try await withGracefulShutdownHandler {
                        for await status in updates {
                            try await writer.write(ByteBuffer(string: Viewer.message("book", status)))
                        }
                    } onGracefulShutdown: {
                        job.cancel()
                    }
                    try await writer.finish(nil)
                } catch {}
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
        router.delete("/api/books/{id}") { _, context in
            guard let job = books.job(try context.parameters.require("id")) else { throw RouteError(.notFound, "no such photobook") }
            job.cancel()
            return Response(status: .noContent)
        }
        router.get("/api/books/{id}/pdf") { _, context in
            guard let job = books.job(try context.parameters.require("id")) else { throw RouteError(.notFound, "no such photobook") }
            guard let path = job.pdfPath else {
                throw RouteError(.conflict, "the photobook is \(job.current.state), not done")
            }
            // Streamed from the file on NIO's thread pool, in chunks.
            let body = try await FileIO().loadFile(path: path, context: context)
            return Response(status: .ok, headers: [.contentType: "application/pdf", .contentDisposition: "attachment; filename=\"photobook.pdf\"",
                                                   .cacheControl: "no-store"],
                            body: body)
        }
    }

    package enum Check { case success(PhotobookRequest), failure(String) }

    func photobookRequest(_ order: BookOrder) -> Check {
        Self.photobookRequest(order, list: gallery.list)
    }

    /// The order checked and made a request: every row in `list`, every
    /// source http(s), every number in range.
    package static func photobookRequest(_ order: BookOrder, list: PhotoList) -> Check {
        var photos: [PhotobookRequest.Photo] = []
        for row in order.rows ?? [] {
            guard list.entries.indices.contains(row), let url = list.entries[row].url else {
                return .failure("row \(row) is not a photo of the gallery's list")
            }
            photos.append(.init(name: list.entries[row].name, source: .url(url)))
        }
        for text in order.sources ?? [] {
            guard let url = URL(string: text), ["http", "https", LocalFileLoader.scheme].contains(url.scheme?.lowercased() ?? "") else {
                return .failure("source '\(text)' is not an http, https or local URL")
            }
            photos.append(.init(name: url.deletingPathExtension().lastPathComponent, source: .url(url)))
        }
        guard !photos.isEmpty else { return .failure("a photobook needs rows or sources") }
        guard photos.count <= 500 else { return .failure("a photobook takes at most 500 photos") }
        var request = PhotobookRequest(photos: photos)
        if let page = order.page {
            guard let size = PhotobookRequest.PageSize(page) else { return .failure("page '\(page)': expected A4, Letter or WxH") }
            request.page = size
        }
        if let fit = order.fit {
            guard fit == "fill" || fit == "fit" else { return .failure("fit '\(fit)': expected fill or fit") }
            request.fit = fit == "fit" ? .fit : .fill
        }
        do {
            request.filter = try ImageOperation(filter: order.filter ?? "sepia")
        } catch {
            return .failure("filter '\(order.filter ?? "")': \(error.reason)")
        }
        request.captions = order.captions ?? true
        if let margin = order.margin {
            guard margin.isFinite, (0...1000).contains(margin) else { return .failure("margin \(margin): expected millimetres from 0 to 1000") }
        }
        request.margin = order.margin ?? 10
        request.skipFailed = true
        request.priority = .low
        return .success(request)
    }
}
