import Dispatch
import NIOCore
import NIOHTTP1

/// Answers image URLs that the memory cache holds on the connection's event
/// loop, before Hummingbird sees them.
///
/// A hit is a dictionary lookup and a few header fields, but through
/// Hummingbird each one also crossed from the event loop to a task on
/// Swift's cooperative pool and back, and was converted from NIO's HTTP/1
/// types to Hummingbird's and back: together several times the cost of
/// the hit itself. The handler sits in front of that conversion (see
/// ``ImageServerChannel``). Everything else (misses, other routes, a
/// request while an earlier one on the connection is still being answered,
/// so that answers keep their order) goes on to Hummingbird as before.
/// A hit counts in the request metrics and the access log as the router's
/// answers do (``RequestRecorder``).
///
/// It sits socket-side of ``RequestPartsWatcher`` and keeps the watcher's
/// rules for what it answers itself: only HTTP/1.1 keep-alive requests with
/// a `Host` and a target within the limit, the connection's timer told when
/// a hit's request has ended. Anything else goes on, and the watcher
/// refuses it or answers it in its own version.
final class CachedImageHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let images: ImageRoutes
    private let recorder: RequestRecorder
    /// The hits of this connection's event loop, for the metrics.
    private let tally: MemoryHitTally
    // Only touched on the channel's event loop.
    private let timer: ConnectionTimer
    /// Requests handed to Hummingbird whose answers have not ended.
    private var outstanding = 0
    /// Dropping the rest of a request that was answered here.
    private var swallowing = false
    /// When the last hit here was answered.
    private var answered = NIODeadline.now()
    /// A request the parts watcher refuses closes the connection: nothing
    /// after it is answered here.
    private var refused = false

    init(images: ImageRoutes, recorder: RequestRecorder, timer: ConnectionTimer, loop: any EventLoop) {
        self.images = images
        self.recorder = recorder
        self.timer = timer
        tally = recorder.memoryHitTally(on: loop)
    }

    /// Whether the parts watcher would pass `request` on unchanged: what
    /// it refuses (414, 400) or rewrites (HTTP/1.0, `Connection: close`)
    /// is left to it.
    private func answerable(_ request: HTTPRequestHead) -> Bool {
        if refused { return false }
        if timer.timeouts.refusal(of: request) != nil {
            refused = true
            return false
        }
        return request.version == .http1_1
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if answerable(request), outstanding == 0, let answer = images.cachedAnswer(to: request, newID: tally.nextID) {
                swallowing = true
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body {
                    context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
                // Counted once handed to the channel, as the router's answers
                // are once their body is handed on: a write that fails at
                // once closes the channel and is not counted; one that fails
                // later (a large answer to a client that leaves) still is.
                // No promise: its allocation and callback showed in the
                // hit's profile.
                guard context.channel.isActive else { return }
                let status = Int(answer.head.status.code)
                answered = .now()
                // Timed from the request's first byte, which the timer's
                // bytes side has read the clock for already.
                let took = (answered - timer.since).nanoseconds
                tally.answered(status: status, nanoseconds: took)
                // The access line's fields are made only where it is written.
                if recorder.logsAccess {
                    let id = answer.head.headers[RequestID.header].first ?? ""
                    recorder.logAccess(nil, method: "GET", path: request.uri, status: status,
                                       since: DispatchTime.now().uptimeNanoseconds &- UInt64(took),
                                       extra: ["request_id": .string(id), "hb.request.id": .string(id), "answered_from": "memory cache"])
                }
                return
            }
            outstanding += 1
            context.fireChannelRead(data)
        case .body:
            if !swallowing { context.fireChannelRead(data) }
        case .end:
            if swallowing {
                swallowing = false
                // The hit's request has been read and answered: the
                // connection is idle from its answer (read with the clock
                // once: a GET's end comes in the read its head came in).
                timer.reading = false
                timer.since = answered
                timer.schedule(context)
            } else {
                context.fireChannelRead(data)
            }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { outstanding = max(0, outstanding - 1) }
        context.write(data, promise: promise)
    }
}
