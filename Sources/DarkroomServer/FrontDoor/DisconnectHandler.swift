import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client has gone away while its request is
/// still being answered.
///
/// The server allows half-closed connections, so a client that hangs up
/// only closes the input side and the channel stays open. Without this, the
/// work for a request whose client is gone would run on to the end. Closing
/// fires the channel's close future, which cancels the handler's share of
/// the work. (A client that half-closes on purpose and still waits for its
/// answer loses it; such clients are rare.)
final class DisconnectHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    // Only touched on the channel's event loop.
    private var answering = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { answering = true }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { answering = false }
        context.write(data, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event, answering {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
