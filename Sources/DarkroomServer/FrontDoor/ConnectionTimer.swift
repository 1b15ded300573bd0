import NIOCore
import NIOHTTP1

/// Closes a connection that holds the server without asking anything of
/// it: idle between requests past the keep-alive timeout (imgproxy's
/// `IMGPROXY_KEEP_ALIVE_TIMEOUT`), or slower than the read timeout to send
/// a request's head and body once its first byte came (imgproxy's
/// `IMGPROXY_READ_REQUEST_TIMEOUT`), which ends headers sent a line every
/// few seconds. A request being answered has no deadline here: processing
/// has its own limits.
///
/// Handlers share this state, on the connection's event loop: the bytes
/// side (a request's first byte, seen by ``ConnectionAdmission``), the
/// parsed side (heads, request ends, and responses' ends), and the
/// memory-cache hits' handler, which says when a request it answered
/// itself has ended.
final class ConnectionTimer {
    struct Timeouts: Sendable {
        var keepAlive: TimeAmount
        var readRequest: TimeAmount
        /// The longest request target (path and query), as nginx's 8 KB
        /// header buffers bound it, answered 414 before any work.
        var maxRequestTarget: Int

        /// Why a request is refused before any work, with its status: a
        /// target past the limit (414), or HTTP/1.1 without `Host` (400).
        /// One rule for the parts watcher, which refuses, and the hits'
        /// handler, which leaves such a request to it.
        func refusal(of head: HTTPRequestHead) -> (status: HTTPResponseStatus, reason: String)? {
            if head.uri.utf8.count > maxRequestTarget {
                return (.uriTooLong, "the request's target is \(head.uri.utf8.count) bytes, over the limit of \(maxRequestTarget)")
            }
            if head.version == .http1_1, !head.headers.contains(name: "host") {
                return (.badRequest, "an HTTP/1.1 request must name its Host")
            }
            return nil
        }
    }

    let timeouts: Timeouts
    /// Requests whose head came and whose answer has not ended.
    var inFlight = 0
    /// A request's head or body is arriving.
    var reading = false
    /// When the present wait began: the connection, an answer's end, or a
    /// request's first byte.
    var since = NIODeadline.now()
    private var check: Scheduled<Void>?

    init(timeouts: Timeouts) { self.timeouts = timeouts }

    var deadline: NIODeadline? {
        if reading { return since + timeouts.readRequest }
        if inFlight == 0 { return since + timeouts.keepAlive }
        return nil
    }

    /// A request's first byte, on a connection that was waiting for one.
    func bytesArrived() {
        guard !reading, inFlight == 0 else { return }
        reading = true
        since = .now()
    }

    /// Keeps one check scheduled while there is a deadline; the check
    /// closes the connection past it, or looks again at the new one.
    func schedule(_ context: ChannelHandlerContext) {
        // Checked before the context is asked for its loop and channel:
        // nearly always a check is already set, and this runs per request.
        guard check == nil, deadline != nil else { return }
        schedule(on: context.eventLoop, closing: context.channel)
    }

    private func schedule(on loop: any EventLoop, closing channel: any Channel) {
        guard check == nil, let deadline else { return }
        check = loop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            check = nil
            guard let deadline = self.deadline else { return }
            if deadline <= .now() {
                channel.close(promise: nil)
            } else {
                schedule(on: loop, closing: channel)
            }
        }
    }

    func cancel() {
        check?.cancel()
        check = nil
    }
}

/// The parsed side of ``ConnectionTimer``, after the request decoder and
/// the memory-cache hits' handler (which answers only requests this
/// watcher would pass on unchanged, and never lets it see them).
/// It also keeps HTTP/1.0 as 1.0: an answer in the request's version that
/// closes the connection unless keep-alive was asked; and refuses an
/// HTTP/1.1 request without `Host` with a 400, as RFC 9112 asks, and a
/// target longer than the limit with a 414, before anything parses it.
final class RequestPartsWatcher: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    let timer: ConnectionTimer
    /// The requests being answered, in order: their version and whether
    /// the connection stays open after: a ring, as they leave from the
    /// front.
    private var requests = CircularBuffer<(version: HTTPVersion, keepAlive: Bool)>(initialCapacity: 2)
    /// A refused request's parts are dropped; the connection closes once
    /// its answer is written.
    private var refusing = false

    let fields: FrontFields

    init(timer: ConnectionTimer, fields: FrontFields) {
        self.timer = timer
        self.fields = fields
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let part = unwrapInboundIn(data)
        // The rest of a refused request: the connection closes after its 400.
        if refusing { return }
        switch part {
        case .head(let head):
            if let refusal = timer.timeouts.refusal(of: head) {
                refuse(context, head: head, status: refusal.status, refusal.reason)
                return
            }
            requests.append((head.version, head.isKeepAlive))
            timer.inFlight += 1
            if !timer.reading {
                timer.reading = true
                timer.since = .now()
            }
        case .body:
            break
        case .end:
            timer.reading = false
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(var head) where requests.first.map { !$0.keepAlive || $0.version != head.version } == true:
            // In the request's version, saying whether the connection stays.
            let request = requests.first!
            head.version = request.version
            if !request.keepAlive {
                head.headers.replaceOrAdd(name: "connection", value: "close")
            } else if request.version == .http1_0 {
                head.headers.replaceOrAdd(name: "connection", value: "keep-alive")
            }
            context.write(wrapOutboundOut(.head(head)), promise: promise)
        case .end:
            let request = requests.isEmpty ? nil : requests.removeFirst()
            timer.inFlight = max(0, timer.inFlight - 1)
            if timer.inFlight == 0, !timer.reading { timer.since = .now() }
            timer.schedule(context)
            if let request, !request.keepAlive {
                let done = context.eventLoop.makePromise(of: Void.self)
                done.futureResult.cascade(to: promise)
                context.writeAndFlush(data, promise: done)
                let channel = context.channel
                done.futureResult.whenComplete { _ in channel.close(promise: nil) }
            } else {
                context.write(data, promise: promise)
            }
        default:
            context.write(data, promise: promise)
        }
    }

    private func refuse(_ context: ChannelHandlerContext, head: HTTPRequestHead, status: HTTPResponseStatus, _ reason: String) {
        refusing = true
        let body = reason + "\n"
        var headers = HTTPHeaders([("content-type", "text/plain; charset=utf-8"), ("content-length", "\(body.utf8.count)"),
                                   ("connection", "close")])
        fields.add(to: &headers, requestID: nil, image: false)
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in channel.close(promise: nil) }
    }
}
