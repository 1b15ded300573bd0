import Darkroom
import Foundation
import Synchronization

/// One page looking at the gallery: its own photo-list controller, and the
/// server-sent events that carry its rows' changes and the status strip.
final class Viewer: Sendable {
    let id: String
    let controller: PhotoListController
    /// Server-sent event messages, ready to write.
    let messages: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let lastSeen = Mutex<ContinuousClock.Instant>(.now)

    init(id: String, gallery: Gallery) {
        self.id = id
        controller = PhotoListController(list: gallery.list, pipeline: gallery.pipeline, options: gallery.options, prefetchDistance: 1)
        (messages, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1000))
        let controller = self.controller, continuation = self.continuation
        let rows = Task {
            for await event in controller.events {
                continuation.yield(Self.message("row", RowMessage(event)))
            }
        }
        let status = Task {
            while !Task.isCancelled {
                continuation.yield(Self.message("status", gallery.status()))
                try? await Task.sleep(for: .seconds(1))
            }
        }
        tasks.withLock { $0 = [rows, status] }
    }

    func touch() { lastSeen.withLock { $0 = .now } }

    /// Ends the event stream (the server is shutting down).
    func endStream() { continuation.finish() }
    var idle: Duration { .now - lastSeen.withLock { $0 } }

    func close() async {
        await controller.close()
        tasks.withLock { $0 }.forEach { $0.cancel() }
        continuation.finish()
    }

    static func message<T: Encodable>(_ event: String, _ value: T) -> String {
        let json = (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(event)\ndata: \(json)\n\n"
    }
}

/// A row's change, as the page receives it.
struct RowMessage: Codable, Sendable {
    var row: Int
    var state: String
    var reason: String?
    /// Where to get the image for this state.
    var image: String?

    init(_ event: PhotoRowEvent) {
        row = event.row
        state = event.state.name
        switch event.state {
        case .downloaded: image = "/api/rows/\(event.row)/original"
        case .filtered: image = "/api/rows/\(event.row)/image"
        case .failed(let why): reason = why
        case .new: break
        }
    }
}

/// The gallery's viewers, by id. Viewers whose page has gone are closed.
final class ViewerRegistry: Sendable {
    private let viewers = Mutex<[String: Viewer]>([:])

    func make(gallery: Gallery) -> Viewer {
        let viewer = Viewer(id: UUID().uuidString.lowercased(), gallery: gallery)
        viewers.withLock { $0[viewer.id] = viewer }
        return viewer
    }

    func viewer(_ id: String) -> Viewer? {
        let viewer = viewers.withLock { $0[id] }
        viewer?.touch()
        return viewer
    }

    func remove(_ id: String) async {
        await viewers.withLock { $0.removeValue(forKey: id) }?.close()
    }

    /// Closes viewers not heard from for `limit` (their page closed without saying).
    func closeIdle(after limit: Duration) async {
        let stale = viewers.withLock { v in v.values.filter { $0.idle > limit }.map(\.id) }
        for id in stale { await remove(id) }
    }

    var count: Int { viewers.withLock { $0.count } }
}
