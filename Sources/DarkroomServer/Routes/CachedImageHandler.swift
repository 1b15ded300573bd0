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
final class CachedImageHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let images: ImageRoutes
    private let recorder: RequestRecorder
    // Only touched on the channel's event loop.
    /// Requests handed to Hummingbird whose answers have not ended.
    private var outstanding = 0
    /// Dropping the rest of a request that was answered here.
    private var swallowing = false

    init(images: ImageRoutes, recorder: RequestRecorder) {
        self.images = images
        self.recorder = recorder
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            let started = DispatchTime.now().uptimeNanoseconds
            if outstanding == 0, let answer = images.cachedAnswer(to: request) {
                swallowing = true
                recorder.beginMemoryHit()
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body {
                    context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
                }
                let written = context.eventLoop.makePromise(of: Void.self)
                let (recorder, status, head) = (recorder, Int(answer.head.status.code), request)
                written.futureResult.whenComplete { result in
                    let done: Bool = if case .success = result { true } else { false }
                    recorder.answeredMemoryHit(status: status, since: started, written: done)
                    // The access line's fields are made only where it is written.
                    if done && recorder.logsAccess {
                        let id = answer.head.headers[RequestID.header].first ?? ""
                        recorder.logAccess(nil, method: "GET", path: head.uri, status: status, since: started,
                                           extra: ["request_id": .string(id), "hb.request.id": .string(id), "answered_from": "memory cache"])
                    }
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: written)
                return
            }
            outstanding += 1
            context.fireChannelRead(data)
        case .body:
            if !swallowing { context.fireChannelRead(data) }
        case .end:
            if swallowing {
                swallowing = false
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
