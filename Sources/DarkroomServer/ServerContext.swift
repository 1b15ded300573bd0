public import Hummingbird
public import NIOCore

/// The request context: Hummingbird's core, and the connection's channel, so
/// a handler can tell when its client has gone away.
public struct ServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
