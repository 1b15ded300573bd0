public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import Synchronization
import DarkroomImaging

/// A local origin for tests: serves a folder over HTTP on 127.0.0.1, and can
/// be told to misbehave per path. It counts requests per path.
///
/// ```swift
/// let origin = try await OriginServer.start(serving: Corpus.root)
/// origin.set(.status(404), for: "/photos/Aqua.jpg")
/// let url = origin.url("/photos/Aqua.jpg")
/// ```
public final class OriginServer: Sendable {
    public enum Behaviour: Sendable {
        /// Serve the file, with ETag and Last-Modified, honouring If-None-Match.
        case normal
        case delay(Duration)
        case status(Int)
        /// Close the connection without answering.
        case reset
        /// Promise the whole file, send this many bytes, then close.
        case truncate(Int)
        case contentType(String)
        /// 302 to another path (or to itself, for a loop).
        case redirect(String)
        /// Send the file in chunks, one every interval.
        case drip(chunk: Int, every: Duration)
        /// The file sent with no length (chunked transfer encoding), a
        /// chunk every so often: a body whose size is known only as it
        /// arrives; the file `times` over, one copy after another.
        case chunked(chunk: Int, every: Duration, times: Int = 1)
        /// Answer with this status the first `times` requests, then normally.
        case failFirst(times: Int, status: Int)
        case body(Data, contentType: String)
        /// The first `times` requests: promise the whole file, send `bytes`
        /// of it, then reset the connection (a TCP RST); then normally.
        case resetFirst(times: Int, afterBytes: Int)
        /// Serve the file, with these header fields besides.
        case headers([(String, String)])
        /// Serve the file once the test calls ``release(_:)`` for the path
        /// (at once for requests after that).
        case held
    }

    public let port: Int
    let root: URL
    private let channel: any Channel
    private let state = Locked<State>(State())

    struct State {
        var behaviours: [String: Behaviour] = [:]
        var defaultDelay: Duration = .zero
        var counts: [String: Int] = [:]
        var aborted: [String: Int] = [:]
        var lastHeaders: [String: [String: String]] = [:]
        var notModified: [String: Int] = [:]
        var released: Set<String> = []
        var heldAnswers: [String: [@Sendable () -> Void]] = [:]
    }

    private init(port: Int, root: URL, channel: any Channel) {
        self.port = port
        self.root = root
        self.channel = channel
    }

    /// Starts serving `root` on a free port of 127.0.0.1; over HTTPS with
    /// `certificate`'s identity when given.
    public static func start(serving root: URL, certificate: TestCertificate? = nil) async throws -> OriginServer {
        let box = Locked<OriginServer?>(nil)
        let tls = try certificate.map { certificate in
            try NIOSSLContext(configuration: .makeServerConfiguration(
                certificateChain: NIOSSLCertificate.fromPEMFile(certificate.certificate.path).map { .certificate($0) },
                privateKey: .privateKey(NIOSSLPrivateKey(file: certificate.key.path, format: .pem))))
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                let secured = tls.map { channel.pipeline.addHandler(NIOSSLServerHandler(context: $0)) } ?? channel.eventLoop.makeSucceededVoidFuture()
                return secured.flatMap { channel.pipeline.configureHTTPServerPipeline() }.flatMap {
                    channel.pipeline.addHandler(OriginHandler(server: { box.withLock { $0 } }))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let server = OriginServer(port: channel.localAddress!.port!, root: root, channel: channel)
        box.withLock { $0 = server }
        return server
    }

    public func stop() async {
        try? await channel.close()
    }

    public func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    public func set(_ behaviour: Behaviour, for path: String) {
        state.withLock { $0.behaviours[path] = behaviour }
    }

    /// Lets the answers `.held` for `path` go, those waiting and those to come.
    public func release(_ path: String) {
        let waiting = state.withLock { s in
            s.released.insert(path)
            defer { s.heldAnswers[path] = nil }
            return s.heldAnswers[path] ?? []
        }
        waiting.forEach { $0() }
    }

    /// Holds `answer` until `path` is released; false: released already.
    func hold(_ path: String, answer: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { s in
            if s.released.contains(path) { return false }
            s.heldAnswers[path, default: []].append(answer)
            return true
        }
    }

    /// A delay before every answer, such as network latency.
    public func setDefaultDelay(_ delay: Duration) {
        state.withLock { $0.defaultDelay = delay }
    }

    /// Requests received for `path`.
    public func requests(_ path: String) -> Int {
        state.withLock { $0.counts[path, default: 0] }
    }

    /// Requests for `path` whose client went away before the answer was sent.
    public func aborted(_ path: String) -> Int {
        state.withLock { $0.aborted[path, default: 0] }
    }

    public var totalRequests: Int {
        state.withLock { $0.counts.values.reduce(0, +) }
    }

    public func resetCounts() {
        state.withLock { s in
            s.counts = [:]
            s.aborted = [:]
        }
    }

    /// How many times `path` was answered 304 Not Modified.
    public func notModifiedAnswers(_ path: String) -> Int {
        state.withLock { $0.notModified[path] ?? 0 }
    }

    func recordNotModified(_ path: String) {
        state.withLock { $0.notModified[path, default: 0] += 1 }
    }

    /// The headers of the last request for `path`, names in lower case.
    public func lastHeaders(_ path: String) -> [String: String]? {
        state.withLock { $0.lastHeaders[path] }
    }

    /// Counts a request and says how to answer it.
    func received(_ path: String, headers: [String: String] = [:]) -> (Behaviour, Duration, count: Int) {
        state.withLock { s in
            s.counts[path, default: 0] += 1
            s.lastHeaders[path] = headers
            return (s.behaviours[path] ?? .normal, s.defaultDelay, s.counts[path]!)
        }
    }

    func recordAbort(_ path: String) {
        state.withLock { $0.aborted[path, default: 0] += 1 }
    }
}

/// Answers one connection's requests as the server's behaviours say.
final class OriginHandler: ChannelInboundHandler, @unchecked Sendable {
    // Only touched on the channel's event loop.
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// nil for a connection that arrives before the server is set up (a
    /// client of another test that reached a reused port): it is closed.
    private let server: @Sendable () -> OriginServer?
    private var head: HTTPRequestHead?
    private var answering: String?

    init(server: @escaping @Sendable () -> OriginServer?) {
        self.server = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            answer(head, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let answering { server()?.recordAbort(answering) }
        answering = nil
        context.fireChannelInactive()
    }

    private func answer(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let path = String(head.uri.split(separator: "?", maxSplits: 1).first ?? "")
        guard let origin = server() else {
            context.close(promise: nil)
            return
        }
        let headers = Dictionary(head.headers.map { ($0.name.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        let (behaviour, defaultDelay, count) = origin.received(path, headers: headers)
        answering = path
        let loop = context.eventLoop
        let ctx = NIOLoopBound(context, eventLoop: loop)
        let this = NIOLoopBound(self, eventLoop: loop)
        if case .held = behaviour {
            let held = origin.hold(path) {
                loop.execute { this.value.respond(head, path: path, behaviour: .normal, count: count, origin: origin, context: ctx.value) }
            }
            if held { return }
        }
        var delay = defaultDelay
        if case .delay(let extra) = behaviour { delay += extra }
        loop.scheduleTask(in: .nanoseconds(Int64(delay.components.seconds * 1_000_000_000 + delay.components.attoseconds / 1_000_000_000))) {
            this.value.respond(head, path: path, behaviour: behaviour, count: count, origin: origin, context: ctx.value)
        }
    }

    private func respond(_ request: HTTPRequestHead, path: String, behaviour: OriginServer.Behaviour, count: Int, origin: OriginServer, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        switch behaviour {
        case .status(let code):
            send(status: code, body: Data("status \(code)\n".utf8), contentType: "text/plain", context: context)
        case .failFirst(let times, let code) where count <= times:
            send(status: code, body: Data("status \(code)\n".utf8), contentType: "text/plain", context: context)
        case .reset:
            answering = nil
            context.close(promise: nil)
        case .redirect(let target):
            var headers = HTTPHeaders([("Location", target), ("Content-Length", "0")])
            headers.add(name: "Connection", value: "keep-alive")
            finish(HTTPResponseHead(version: .http1_1, status: .found, headers: headers), body: nil, context: context)
        case .body(let data, let contentType):
            send(status: 200, body: data, contentType: contentType, context: context)
        default:
            serveFile(request, path: path, behaviour: behaviour, count: count, origin: origin, context: context)
        }
    }

    private func serveFile(_ request: HTTPRequestHead, path: String, behaviour: OriginServer.Behaviour, count: Int, origin: OriginServer, context: ChannelHandlerContext) {
        let relative = path.removingPercentEncoding ?? path
        let file = origin.root.appendingPathComponent(String(relative.drop(while: { $0 == "/" })))
        guard !relative.contains(".."), let data = try? Data(contentsOf: file) else {
            send(status: 404, body: Data("not found\n".utf8), contentType: "text/plain", context: context)
            return
        }
        let etag = "\"\(data.count)-\(data.prefix(64).reduce(0) { ($0 &* 31) &+ Int($1) })\""
        let lastModified = "Tue, 01 Sep 2026 10:00:00 GMT"
        if request.headers.first(name: "If-None-Match") == etag {
            origin.recordNotModified(path)
            finish(HTTPResponseHead(version: .http1_1, status: .notModified, headers: HTTPHeaders([("ETag", etag), ("Content-Length", "0")])), body: nil, context: context)
            return
        }
        var type = file.pathExtension == "jpg" ? "image/jpeg" : (file.pathExtension == "md" ? "text/markdown" : "application/octet-stream")
        if case .contentType(let forced) = behaviour { type = forced }
        var head = HTTPResponseHead(version: .http1_1, status: .ok, headers: HTTPHeaders([
            ("Content-Type", type), ("Content-Length", "\(data.count)"), ("ETag", etag), ("Last-Modified", lastModified),
        ]))
        if case .headers(let extra) = behaviour { head.headers.add(contentsOf: extra) }
        switch behaviour {
        case .resetFirst(let times, let bytes) where count <= times:
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let buffer = context.channel.allocator.buffer(bytes: data.prefix(bytes))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            answering = nil
            // A zero linger time makes close send RST instead of FIN.
            let channel = context.channel
            guard let socket = channel as? any SocketOptionProvider else {
                channel.close(promise: nil)
                return
            }
            socket.setSoLinger(linger(l_onoff: 1, l_linger: 0)).whenComplete { _ in
                channel.close(promise: nil)
            }
        case .truncate(let bytes):
            context.write(wrapOutboundOut(.head(head)), promise: nil)
            let buffer = context.channel.allocator.buffer(bytes: data.prefix(bytes))
            context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
            answering = nil
            context.close(promise: nil)
        case .drip(let chunk, let every):
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
            drip(data, from: 0, total: data.count, chunk: chunk, every: every, context: context)
        case .chunked(let chunk, let every, let times):
            var unsized = head
            unsized.headers.remove(name: "Content-Length")
            unsized.headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
            context.writeAndFlush(wrapOutboundOut(.head(unsized)), promise: nil)
            drip(data, from: 0, total: data.count * times, chunk: chunk, every: every, context: context)
        default:
            finish(head, body: data, context: context)
        }
    }

    /// Sends `total` bytes of `data` repeated, `chunk` bytes every `every`
    /// (a chunk ends early where one copy ends).
    private func drip(_ data: Data, from offset: Int, total: Int, chunk: Int, every: Duration, context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        guard offset < total, !data.isEmpty else {
            answering = nil
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            return
        }
        let start = offset % data.count
        let length = min(chunk, data.count - start, total - offset)
        let piece = data[data.startIndex + start..<data.startIndex + start + length]
        context.writeAndFlush(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: piece)))), promise: nil)
        let ctx = NIOLoopBound(context, eventLoop: context.eventLoop)
        let this = NIOLoopBound(self, eventLoop: context.eventLoop)
        let nanos = Int64(every.components.seconds * 1_000_000_000 + every.components.attoseconds / 1_000_000_000)
        context.eventLoop.scheduleTask(in: .nanoseconds(nanos)) {
            this.value.drip(data, from: offset + length, total: total, chunk: chunk, every: every, context: ctx.value)
        }
    }

    private func send(status: Int, body: Data, contentType: String, context: ChannelHandlerContext) {
        let head = HTTPResponseHead(version: .http1_1, status: HTTPResponseStatus(statusCode: status),
                                    headers: HTTPHeaders([("Content-Type", contentType), ("Content-Length", "\(body.count)")]))
        finish(head, body: body, context: context)
    }

    private func finish(_ head: HTTPResponseHead, body: Data?, context: ChannelHandlerContext) {
        answering = nil
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body {
            context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: body)))), promise: nil)
        }
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// `url` as the source of an imgproxy `plain` URL: its query escaped, so
/// that it stays the source's and does not become the image URL's.
public func plainSource(_ url: URL) -> String {
    url.absoluteString.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "?", with: "%3F")
        .replacingOccurrences(of: "&", with: "%26").replacingOccurrences(of: "=", with: "%3D")
}
