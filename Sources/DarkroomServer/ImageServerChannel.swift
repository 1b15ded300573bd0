import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel with ``CachedImageHandler`` in front of its
/// conversion from NIO's HTTP/1 types to Hummingbird's, where a memory-cache
/// hit is answered at the least cost. Hummingbird's own option for extra
/// handlers places them after that conversion.
struct ImageServerChannel: HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let images: ImageRoutes

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [images] value in
            let operations = channel.pipeline.syncOperations
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            try operations.addHandler(CachedImageHandler(images: images), position: .before(codec))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with memory-cache hits answered by ``CachedImageHandler``.
    static func darkroom(images: ImageRoutes, configuration: HTTP1Channel.Configuration) -> HTTPServerBuilder {
        .init { responder in
            ImageServerChannel(base: HTTP1Channel(responder: responder, configuration: configuration), images: images)
        }
    }
}
