import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOFoundationCompat
import NIOSSL

/// Fetches sources over HTTP with AsyncHTTPClient.
///
/// Only http and https; connect, read and total timeouts; a cap on
/// redirects; a cap on the body, enforced while it streams in; only 2xx is
/// success; the body's magic bytes must be an image Darkroom reads. Transient
/// failures (connection reset, 502, 503, 504) are retried a few times with
/// jittered exponential backoff.
public final class DataLoader: DataLoading {
    public struct Configuration: Sendable, Hashable {
        public var connectTimeout: Duration = .seconds(5)
        /// The longest silence while reading.
        public var readTimeout: Duration = .seconds(10)
        /// The longest a whole request may take, retries aside.
        public var totalTimeout: Duration = .seconds(30)
        public var maxBodyBytes: Int = 50_000_000
        public var maxRedirects: Int = 5
        /// Extra tries after the first, for transient failures.
        public var retries: Int = 2
        /// The first backoff; each retry doubles it, with jitter of ±50%.
        public var retryDelay: Duration = .milliseconds(200)
        /// Connections per host; further requests to that host wait.
        public var connectionsPerHost: Int = 4
        public var userAgent: String = Self.defaultUserAgent
        /// Header fields sent with every source request (imgproxy Pro's
        /// `IMGPROXY_CUSTOM_REQUEST_HEADERS`), before a client's own passed on.
        public var extraHeaders: [PassedHeader] = []
        /// The origin's fields kept with a source, to be passed on to its
        /// answers (imgproxy Pro's `IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH`).
        public var passedResponseHeaders: [String] = []
        /// Darkroom's version, as sources see it in the `User-Agent`.
        public static let version = "0.1"
        public static let defaultUserAgent = "Darkroom/\(version)"
        /// PEM files of certificate authorities trusted for HTTPS sources,
        /// besides the system's (origins under a private CA).
        public var trustedCertificateFiles: [String] = []
        /// Which sources may be fetched; nil: any http(s) URL (a command-line
        /// tool's user names their own sources). A server sets one.
        public var policy: SourcePolicy?

        public init() {}
    }

    public let configuration: Configuration
    private let client: HTTPClient
    /// HTTPS fetches that connect to the address the policy checked.
    private let pinned: PinnedClients

    /// A loader with clients of its own; call ``shutdown()`` when done.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        self.client = Self.makeClient(configuration, dnsOverride: [:])
        self.pinned = PinnedClients(grace: configuration.totalTimeout + .seconds(5)) { override in
            Self.makeClient(configuration, dnsOverride: override)
        }
    }

    private static func makeClient(_ configuration: Configuration, dnsOverride: [String: String]) -> HTTPClient {
        // With a policy, redirects are followed here, hop by hop, so that
        // every hop's address is checked before it is connected to.
        var http = HTTPClient.Configuration(
            redirectConfiguration: configuration.maxRedirects > 0 && configuration.policy == nil
                ? .follow(max: configuration.maxRedirects, allowCycles: false) : .disallow,
            timeout: .init(connect: .init(configuration.connectTimeout), read: .init(configuration.readTimeout)),
            decompression: .disabled
        )
        http.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = configuration.connectionsPerHost
        http.dnsOverride = dnsOverride
        if !configuration.trustedCertificateFiles.isEmpty {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = configuration.trustedCertificateFiles.map { .file($0) }
            http.tlsConfiguration = tls
        }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: http)
    }

    /// What origins are asked for: the classic formats first, any image
    /// after.
    public static let accept = "image/jpeg,image/png,image/gif;q=0.9,image/*;q=0.8"

    public func shutdown() async throws {
        await pinned.shutdown()
        try await client.shutdown()
    }

    deinit {
        // Released without shutdown(): shut the clients down in the background
        // (each keeps itself alive until done) rather than leak them, or trap, as
        // AsyncHTTPClient does in debug builds. Already shut down: a no-op.
        client.shutdown { _ in }
        pinned.shutdownInBackground()
    }

    public func load(_ request: DataRequest, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse {
        try checkScheme(request.url)
        // The policy's scheme and allow-list are checked in fetch, at every hop.
        return try await withRetries { () async throws(DarkroomError) in
            try await fetch(request, maxBytes: configuration.maxBodyBytes, expectImage: true, progress: progress)
        }
    }

    /// Fetches a document that is not an image (a photo list), with the same
    /// timeouts, redirect cap and retries, and a cap of `maxBytes`.
    public func loadDocument(_ url: URL, maxBytes: Int) async throws(DarkroomError) -> Data {
        try checkScheme(url)
        return try await withRetries { () async throws(DarkroomError) in
            guard case .fetched(let body) = try await fetch(DataRequest(url: url), maxBytes: maxBytes, expectImage: false, progress: { _, _ in }) else {
                throw DarkroomError(.httpStatus, "\(url.absoluteString) answered 304 to an unconditional request", statusCode: 304)
            }
            return body.data
        }
    }

    private func checkScheme(_ url: URL) throws(DarkroomError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw DarkroomError(.forbiddenSource, "\(url.absoluteString) is not an http or https URL")
        }
    }

    /// Runs `body`, again after a jittered, doubling pause when it fails in a
    /// transient way, at most ``Configuration/retries`` more times.
    private func withRetries<T>(_ body: () async throws(DarkroomError) -> T) async throws(DarkroomError) -> T {
        var attempt = 0
        while true {
            do {
                return try await body()
            } catch {
                guard error.isTransient, attempt < configuration.retries, !Task.isCancelled else { throw error }
                attempt += 1
                let pause = configuration.retryDelay.seconds * pow(2, Double(attempt - 1)) * Double.random(in: 0.5...1.5)
                do { try await Task.sleep(for: .seconds(pause)) } catch { throw .cancelled }
            }
        }
    }

    /// Whether `url`'s host is `source`'s or one of its subdomains.
    static func isWithin(_ url: URL, domainOf source: URL) -> Bool {
        guard let host = url.host?.lowercased(), let domain = source.host?.lowercased() else { return false }
        return host == domain || host.hasSuffix("." + domain)
    }

    private func fetch(_ request: DataRequest, maxBytes: Int, expectImage: Bool, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse {
        guard let policy = configuration.policy else {
            return try await fetchHop(request, connectTo: nil, maxBytes: maxBytes, expectImage: expectImage, progress: progress).response!
        }
        var hop = request
        for _ in 0...configuration.maxRedirects {
            // Every hop: scheme (no http+unix, file...), allow-list, then addresses.
            try policy.checkSource(hop.url)
            let address = try await policy.checkedAddress(for: hop.url)
            let result = try await fetchHop(hop, connectTo: address, maxBytes: maxBytes, expectImage: expectImage, progress: progress)
            if let response = result.response { return response }
            let next = result.redirect!
            // A client's headers follow a redirect within the source's domain only.
            hop = DataRequest(url: next, passedHeaders: Self.isWithin(next, domainOf: request.url) ? request.passedHeaders : [])
        }
        throw DarkroomError(.tooManyRedirects, "\(request.url.absoluteString) redirected more than \(configuration.maxRedirects) times")
    }

    /// One request. Returns the response, or where a redirect points when
    /// redirects are followed by ``fetch(_:maxBytes:expectImage:progress:)``.
    ///
    /// - Parameter address: connect to this address (the one the policy
    ///   checked): for plain HTTP, the URL names it and the Host header the
    ///   host; for HTTPS, a client whose DNS override maps the host to it,
    ///   so that TLS still sends and checks the name.
    private func fetchHop(_ request: DataRequest, connectTo address: IPAddress?, maxBytes: Int, expectImage: Bool,
                          progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> (response: DataResponse?, redirect: URL?) {
        let url = request.url.absoluteString
        var target = url
        var hostHeader: String?
        if let address, request.url.scheme?.lowercased() == "http", let host = request.url.host,
           var parts = URLComponents(url: request.url, resolvingAgainstBaseURL: false) {
            if address.isIPv6 { parts.percentEncodedHost = address.hostLiteral } else { parts.host = address.description }
            target = parts.url?.absoluteString ?? url
            hostHeader = request.url.port.map { "\(host):\($0)" } ?? host
        }
        var client = self.client
        if let address, request.url.scheme?.lowercased() == "https", let host = request.url.host {
            client = pinned.client(host: host, address: address)
        }
        var http = HTTPClientRequest(url: target)
        if let hostHeader { http.headers.replaceOrAdd(name: "Host", value: hostHeader) }
        http.headers.add(name: "User-Agent", value: configuration.userAgent)
        // The same for every client, and no preference for the newer
        // formats: an origin that negotiates must not choose the answer's
        // format (one source key, one set of bytes).
        http.headers.add(name: "Accept", value: DataLoader.accept)
        if let etag = request.etag { http.headers.add(name: "If-None-Match", value: etag) }
        if let lastModified = request.lastModified { http.headers.add(name: "If-Modified-Since", value: lastModified) }
        for header in configuration.extraHeaders + request.passedHeaders { http.headers.replaceOrAdd(name: header.name, value: header.value) }
        // The client's timeout covers the answer's head; the body is held
        // to the same deadline here, or an origin that drips bytes slower
        // than the read timeout but never stops would hold the request.
        let deadline = ContinuousClock.now + configuration.totalTimeout
        do {
            let response = try await client.execute(http, timeout: .init(configuration.totalTimeout))
            if response.status == .notModified, request.etag != nil || request.lastModified != nil {
                return (.notModified, nil)
            }
            if configuration.policy != nil, (300..<400).contains(Int(response.status.code)), response.status != .notModified {
                guard let location = response.headers.first(name: "Location"), let next = URL(string: location, relativeTo: request.url)?.absoluteURL else {
                    throw DarkroomError(.httpStatus, "\(url) answered \(response.status.code) with no usable Location", statusCode: Int(response.status.code))
                }
                return (nil, next)
            }
            guard (200..<300).contains(Int(response.status.code)) else {
                let code = Int(response.status.code)
                throw DarkroomError(.httpStatus, "\(url) answered \(code) \(response.status.reasonPhrase)", statusCode: code)
            }
            let expected = response.headers.first(name: "Content-Length").flatMap(Int.init)
            if let expected, expected > maxBytes {
                throw DarkroomError(.tooManyBytes, "\(url) is \(expected) bytes, over the limit of \(maxBytes) bytes")
            }
            // One buffer of exactly the announced size: no regrowing copies,
            // and none of the rounding up to a power of two that a
            // ByteBuffer's storage gets (a 5 MB photo would hold 8).
            var data = Data(capacity: expected ?? 0)
            for try await chunk in response.body {
                guard data.count + chunk.readableBytes <= maxBytes else {
                    throw DarkroomError(.tooManyBytes, "\(url) sent more than the limit of \(maxBytes) bytes")
                }
                chunk.withUnsafeReadableBytes { data.append(contentsOf: $0) }
                progress(data.count, expected)
                if ContinuousClock.now > deadline {
                    throw DarkroomError(.timedOut, "\(url) did not finish sending in time (\(configuration.totalTimeout.seconds) s)",
                                        transient: true)
                }
            }
            if let expected, data.count < expected {
                throw DarkroomError(.networkFailure, "\(url) ended after \(data.count) of \(expected) bytes", transient: true)
            }
            guard expectImage else {
                // A document: the format is checked by whoever parses it.
                return (.fetched(SourceData(data: data, format: .jpeg, contentType: response.headers.first(name: "Content-Type"))), nil)
            }
            switch ImageFormat.sniff(data) {
            case .image(let format):
                var source = SourceData(data: data, format: format,
                                        contentType: response.headers.first(name: "Content-Type"),
                                        etag: response.headers.first(name: "ETag"),
                                        lastModified: response.headers.first(name: "Last-Modified"),
                                        cacheControl: response.headers.first(name: "Cache-Control"),
                                        expires: response.headers.first(name: "Expires"))
                source.responseHeaders = configuration.passedResponseHeaders.compactMap { name in
                    let values = response.headers[name]
                    return values.isEmpty ? nil : PassedHeader(name: name, value: values.joined(separator: ", "))
                }
                return (.fetched(source), nil)
            case .empty:
                throw DarkroomError(.notAnImage, "\(url) sent an empty body, not an image")
            case .notAnImage(let what):
                throw DarkroomError(.notAnImage, "\(url) sent \(what), not an image")
            }
        } catch let error as DarkroomError {
            throw error
        } catch {
            throw Self.describe(error, url: url)
        }
    }

    /// Turns a client or network error into a sentence.
    static func describe(_ error: any Error, url: String) -> DarkroomError {
        if error is CancellationError { return .cancelled }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return .cancelled
            case .readTimeout, .connectTimeout, .getConnectionFromPoolTimeout:
                // A stalled origin may answer the next try; the bound is the retry count.
                return DarkroomError(.timedOut, "\(url) timed out", underlying: "\(error)", transient: true)
            case .deadlineExceeded:
                return DarkroomError(.timedOut, "\(url) timed out", underlying: "\(error)")
            case .redirectLimitReached, .redirectCycleDetected:
                return DarkroomError(.tooManyRedirects, "\(url) redirected too many times, or in a loop", underlying: "\(error)")
            case .remoteConnectionClosed:
                return DarkroomError(.networkFailure, "\(url): the connection was closed early", underlying: "\(error)", transient: true)
            default:
                break
            }
        }
        if let error = error as? IOError, [ECONNRESET, EPIPE, ECONNABORTED].contains(error.errnoCode) {
            return DarkroomError(.networkFailure, "\(url): the connection was reset", underlying: "\(error)", transient: true)
        }
        if error is NIOConnectionError || error is IOError {
            return DarkroomError(.networkFailure, "\(url): cannot connect", underlying: "\(error)")
        }
        let text = "\(error)"
        let transient = text.contains("reset") || text.contains("ECONNRESET") || text.contains("closed")
        return DarkroomError(.networkFailure, "\(url) could not be fetched", underlying: text, transient: transient)
    }
}

extension DarkroomError {
    /// Worth another try: a dropped connection, or a gateway's 502, 503, 504.
    var isTransient: Bool {
        if transient { return true }
        if kind == .httpStatus, let statusCode { return [502, 503, 504].contains(statusCode) }
        return false
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
