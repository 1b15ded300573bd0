import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// The gallery page and its API: the list, viewers and their events, row images.
struct GalleryRoutes: Sendable {
    let gallery: Gallery

    func add(to router: Router<ServerContext>) {
        // Read once, as the router is built, not on every request.
        let page = try? Data(contentsOf: URL(fileURLWithPath: Gallery.staticFolder).appendingPathComponent("index.html"))
        router.get("/") { _, _ in
            guard let page else { throw RouteError(.internalServerError, "the gallery page is missing") }
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: page)))
        }
        router.get("/api/list") { _, _ in
            try Self.json(ListMessage(rows: gallery.list.entries.map(ListMessage.Row.init)))
        }
        router.get("/api/status") { _, _ in
            try Self.json(gallery.status())
        }
        router.post("/api/viewers") { _, context in
            switch gallery.viewers.make(gallery: gallery, client: context.channel.remoteAddress?.ipAddress ?? "unknown") {
            case .success(let viewer):
                return try Self.json(["id": viewer.id], status: .created)
            case .failure(let refusal):
                throw RouteError(.tooManyRequests, refusal.message, headers: [.retryAfter: "10"])
            }
        }
        router.get("/api/viewers/{id}/events") { _, context in
            guard let viewer = gallery.viewers.viewer(try context.parameters.require("id")) else {
                throw RouteError(.notFound, "no such viewer")
            }
            viewer.markConnected()
            viewer.touch()
            let body = ResponseBody { writer in
                // Status messages flow every second, so a page that went
                // away makes a write fail within a second: then its work stops.
                // The stream never ends by itself, so it ends when the server
                // shuts down gracefully: in-flight requests are waited for.
                do {
                    try await withGracefulShutdownHandler {
                        for await message in viewer.messages {
                            viewer.touch()
                            try await writer.write(ByteBuffer(string: message))
                        }
                    } onGracefulShutdown: {
                        viewer.endStream()
                    }
                    try await writer.finish(nil)
                } catch {}
                await gallery.viewers.remove(viewer.id)
            }
            return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
        }
        router.post("/api/viewers/{id}/visible") { request, context in
            guard let viewer = gallery.viewers.viewer(try context.parameters.require("id")) else {
                throw RouteError(.notFound, "no such viewer")
            }
            let visibility = try await request.decode(as: Visibility.self, context: context)
            viewer.touch()
            if visibility.scrolling {
                await viewer.controller.beginScrolling()
                await viewer.controller.setVisibleRows(visibility.rows)
            } else {
                await viewer.controller.setVisibleRows(visibility.rows)
                if await viewer.controller.isScrolling { await viewer.controller.endScrolling() }
            }
            return Response(status: .noContent)
        }
        router.delete("/api/viewers/{id}") { _, context in
            await gallery.viewers.remove(try context.parameters.require("id"))
            return Response(status: .noContent)
        }
        router.get("/api/rows/{row}/original") { _, context in
            guard let request = gallery.request(row: try context.parameters.require("row", as: Int.self)) else {
                throw RouteError(.notFound, "no such row")
            }
            // A DarkroomError is thrown as it is: Hummingbird answers with its status.
            let source = try await gallery.pipeline.originalData(for: request.source, priority: .high)
            return Response(status: .ok, headers: [.contentType: source.format.mimeType, .cacheControl: "no-cache"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: source.data)))
        }
        router.get("/api/rows/{row}/image") { _, context in
            guard let request = gallery.request(row: try context.parameters.require("row", as: Int.self)) else {
                throw RouteError(.notFound, "no such row")
            }
            let response = try await gallery.pipeline.image(for: request)
            return Response(status: .ok, headers: [.contentType: response.image.format.mimeType, .cacheControl: "no-cache"],
                            body: ResponseBody(byteBuffer: response.image.bytes))
        }
    }

    static func json<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try JSONEncoder().encode(value)
        return Response(status: status, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}

struct Visibility: Decodable {
    var rows: [Int]
    var scrolling: Bool
}

struct ListMessage: Encodable {
    struct Row: Encodable {
        var id: Int
        var name: String
        var detail: String?
        var failed: String?
        init(_ entry: PhotoList.Entry) {
            id = entry.id
            name = entry.name
            detail = entry.detail
            failed = entry.problem
        }
    }
    var rows: [Row]
}
