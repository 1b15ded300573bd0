#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHTTP1
import Synchronization
import DarkroomImaging

/// How many connections the server holds, in all and from one client
/// address: past either, a new connection is answered 503 and closed at
/// once, before anything is read from it, so that idle connections cannot
/// take every file descriptor (with 1,024 of them, 1,010 idle connections
/// once stopped `/health` and cache hits). Behind a proxy every connection
/// comes from its address: there, the per-client limit is turned off (0).
public final class ConnectionLimits: Sendable {
    public struct Configuration: Sendable, Hashable {
        /// Connections in all; default: three quarters of the process's file
        /// limit, at most 10,000 (the rest are for sources, the caches and
        /// libvips).
        public var maxConnections: Int
        /// Connections from one address; 0 for no limit. Default 256.
        public var maxPerClient: Int

        public init(maxConnections: Int = ConnectionLimits.defaultMaxConnections, maxPerClient: Int = 256) {
            self.maxConnections = maxConnections
            self.maxPerClient = maxPerClient
        }
    }

    public static let defaultMaxConnections: Int = {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < UInt(Int.max) else { return 10_000 }
        return max(16, min(10_000, Int(limit.rlim_cur) * 3 / 4))
    }()

    private struct State {
        var total = 0
        var byClient: [String: Int] = [:]
        var refused = 0
    }

    let configuration: Configuration
    private let state = Locked(State())

    public init(_ configuration: Configuration = .init()) { self.configuration = configuration }

    /// Connections held now, and refused since the start (in /metrics).
    public var counts: (open: Int, refused: Int) { state.withLock { ($0.total, $0.refused) } }

    /// Takes a place for a connection from `client`; nil when it is refused,
    /// with why.
    func admit(_ client: String) -> String? {
        state.withLock { state in
            if state.total >= configuration.maxConnections {
                state.refused += 1
                return "the server holds its most connections (\(configuration.maxConnections))"
            }
            let mine = state.byClient[client, default: 0]
            if configuration.maxPerClient > 0, mine >= configuration.maxPerClient {
                state.refused += 1
                return "this address holds its most connections (\(configuration.maxPerClient))"
            }
            state.total += 1
            state.byClient[client] = mine + 1
            return nil
        }
    }

    func release(_ client: String) {
        state.withLock { state in
            state.total -= 1
            let left = state.byClient[client, default: 1] - 1
            state.byClient[client] = left > 0 ? left : nil
        }
    }
}

/// First in every connection's pipeline: takes its place in
/// ``ConnectionLimits`` as it opens and gives it back as it closes. Being
/// the first to see every read, it is also the bytes side of the
/// connection's ``ConnectionTimer`` (a request's first byte), which a
/// handler of its own would cost every read and read-complete one more
/// step through the pipeline.
final class ConnectionAdmission: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    let limits: ConnectionLimits
    let timer: ConnectionTimer
    let fields: FrontFields
    private var client: String?
    private var refused = false

    init(limits: ConnectionLimits, timer: ConnectionTimer, fields: FrontFields) {
        self.limits = limits
        self.timer = timer
        self.fields = fields
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context) }
        timer.since = .now()
        timer.schedule(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context)
        if !refused { context.fireChannelActive() }
    }

    private var decided = false

    private func admit(_ context: ChannelHandlerContext) {
        guard !decided else { return }
        decided = true
        let client = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if let reason = limits.admit(client) {
            refused = true
            let body = "too many connections: \(reason); try again later\n"
            // Written before the HTTP codec (nothing of the request is read).
            var headers = HTTPHeaders([("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "\(body.utf8.count)"),
                                       ("Retry-After", "1"), ("Connection", "close")])
            fields.add(to: &headers, requestID: nil, image: false)
            let answer = "HTTP/1.1 503 Service Unavailable\r\n" + headers.map { "\($0.name): \($0.value)\r\n" }.joined() + "\r\n" + body
            let channel = context.channel
            context.writeAndFlush(NIOAny(context.channel.allocator.buffer(string: answer))).assumeIsolated().whenComplete { _ in
                channel.close(promise: nil)
            }
        } else {
            self.client = client
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // A refused connection's request is never read.
        guard !refused else { return }
        timer.bytesArrived()
        timer.schedule(context)
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        releaseOnce()
        timer.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseOnce()
        timer.cancel()
    }

    private func releaseOnce() {
        guard let client else { return }
        self.client = nil
        limits.release(client)
    }
}
