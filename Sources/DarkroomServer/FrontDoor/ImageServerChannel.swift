import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 channel with ``CachedImageHandler`` in front of its
/// conversion from NIO's HTTP/1 types to Hummingbird's, where a memory-cache
/// hit is answered at the least cost (none when requests are traced), and
/// the connection's admission and timeouts around it (``ConnectionLimits``,
/// ``ConnectionTimer``). From the socket: admission (with the timer's bytes
/// side), NIO's HTTP/1 codec, the hits, the parts watcher, Hummingbird's
/// conversion. Hummingbird's own option for extra handlers places them
/// after that conversion.
struct ImageServerChannel: HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let base: HTTP1Channel
    let images: ImageRoutes?
    let fields: FrontFields
    let recorder: RequestRecorder
    let timeouts: ConnectionTimer.Timeouts
    let limits: ConnectionLimits

    var responder: HTTPChannelHandler.Responder { base.responder }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [images, fields, recorder, timeouts, limits] value in
            let operations = channel.pipeline.syncOperations
            let codec = try operations.handler(type: HTTP1ToHTTPServerCodec.self)
            let timer = ConnectionTimer(timeouts: timeouts)
            let parts = RequestPartsWatcher(timer: timer, fields: fields)
            try operations.addHandler(parts, position: .before(codec))
            // Hits are answered socket-side of the parts watcher, so that
            // their parts are not looked at twice on the way out; the hits'
            // handler keeps the watcher's rules for what it answers.
            if let images {
                let hits = CachedImageHandler(images: images, recorder: recorder, timer: timer, loop: channel.eventLoop)
                try operations.addHandler(hits, position: .before(parts))
            }
            try operations.addHandler(ConnectionAdmission(limits: limits, timer: timer, fields: fields), position: .first)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 with memory-cache hits answered by ``CachedImageHandler``
    /// (where `images` is given), each connection admitted and timed.
    static func darkroom(images: ImageRoutes?, fields: FrontFields, recorder: RequestRecorder, configuration: HTTP1Channel.Configuration,
                         timeouts: ConnectionTimer.Timeouts, limits: ConnectionLimits) -> HTTPServerBuilder {
        .init { responder in
            ImageServerChannel(base: HTTP1Channel(responder: responder, configuration: configuration), images: images, fields: fields,
                               recorder: recorder,
                               timeouts: timeouts, limits: limits)
        }
    }
}
