import Darkroom
import Foundation
import Synchronization
import DarkroomImaging

/// One page looking at the gallery: its own photo-list controller, and the
/// server-sent events that carry its rows' changes and the status strip.
final class Viewer: Sendable {
    let id: String
    /// The address of the client that made it.
    let client: String
    let controller: PhotoListController
    /// Server-sent event messages, ready to write.
    let messages: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation
    private let tasks = Locked<[Task<Void, Never>]>([])
    private let lastSeen = Locked<ContinuousClock.Instant>(.now)
    private let connected = Atomic<Bool>(false)

    init(id: String, client: String, gallery: Gallery) {
        self.id = id
        self.client = client
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

    /// Heard from: its events are read, or a request of its was answered.
    /// A request refused (a 400) does not count.
    func touch() { lastSeen.withLock { $0 = .now } }

    /// Its page opened the event stream.
    func markConnected() { connected.store(true, ordering: .relaxed) }
    var hasConnected: Bool { connected.load(ordering: .relaxed) }

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

/// The gallery's viewers, by id, bounded in all and per client address
/// (each has a photo-list controller and two tasks). Viewers whose page has
/// gone are closed; one whose page never opened its events, soon.
final class ViewerRegistry: Sendable {
    private let viewers = Locked<[String: Viewer]>([:])
    /// The most viewers at once, and from one address.
    let maxViewers: Int
    let maxPerClient: Int

    init(maxViewers: Int = 256, maxPerClient: Int = 16) {
        self.maxViewers = maxViewers
        self.maxPerClient = maxPerClient
    }

    /// A new viewer, or nil with why when the limits are reached.
    func make(gallery: Gallery, client: String) -> Result<Viewer, ViewerRefusal> {
        if let refusal = viewers.withLock({ refusal(in: $0, client: client) }) { return .failure(refusal) }
        // Made outside the lock (a viewer starts its tasks), then checked
        // again as it goes in: another may have taken the last place.
        let viewer = Viewer(id: UUID().uuidString.lowercased(), client: client, gallery: gallery)
        let refused = viewers.withLock { viewers -> ViewerRefusal? in
            if let refusal = refusal(in: viewers, client: client) { return refusal }
            viewers[viewer.id] = viewer
            return nil
        }
        guard let refused else { return .success(viewer) }
        Task { await viewer.close() }
        return .failure(refused)
    }

    private func refusal(in viewers: [String: Viewer], client: String) -> ViewerRefusal? {
        guard viewers.count < maxViewers else { return ViewerRefusal(message: "the gallery has its most viewers (\(maxViewers)); try again later") }
        guard viewers.values.count(where: { $0.client == client }) < maxPerClient else {
            return ViewerRefusal(message: "this address has its most viewers (\(maxPerClient)); close a gallery page first")
        }
        return nil
    }

    func viewer(_ id: String) -> Viewer? {
        viewers.withLock { $0[id] }
    }

    func remove(_ id: String) async {
        await viewers.withLock { $0.removeValue(forKey: id) }?.close()
    }

    /// Closes viewers not heard from for `limit` (their page closed without
    /// saying), and those whose page never opened its events within
    /// `unconnected`.
    func closeIdle(after limit: Duration, unconnected: Duration = .seconds(20)) async {
        // Each viewer's clock is read after the registry's lock is let go.
        let stale = viewers.withLock { Array($0.values) }
            .filter { $0.idle > limit || (!$0.hasConnected && $0.idle > unconnected) }.map(\.id)
        for id in stale { await remove(id) }
    }

    var count: Int { viewers.withLock { $0.count } }
}

struct ViewerRefusal: Error {
    var message: String
}
