import Crypto
public import Foundation
public import Logging
public import Metrics

/// Processed images in S3-compatible storage, shared by every replica: the
/// layer after memory and the local disk, before doing the work again.
///
/// An object's key is a content address of the processed key (source,
/// options, output format, ``ProcessingVersion``) and ``layoutVersion``, never of a URL's
/// signature, so every replica and every signing key finds the same object.
/// It is written whole, in one PUT, with the metadata that answers with the
/// same ETag and Content-Type as the replica that made it.
///
/// The store being down is not Darkroom being down: every call has a time
/// limit, failures open a ``CircuitBreaker`` (calls are skipped until a
/// trial succeeds), and a miss or an error means the image is made as if
/// there were no shared cache.
public final class SharedResultCache: Sendable {
    public struct Configuration: Sendable {
        public var client: S3Client.Configuration
        /// Keys start with this (empty, or ends with `/`).
        public var prefix: String
        /// Failures in a row that open the breaker, and how long it stays open.
        public var failureThreshold = 3
        public var cooldown: Duration = .seconds(5)
        /// Also keep downloaded sources (`--source-cache`), so that a replica
        /// never asks the origin for a photo another replica has fetched.
        public var storesSources = false

        public init(location: S3Location, endpoint: URL, credentials: S3Credentials) {
            client = S3Client.Configuration(endpoint: endpoint, bucket: location.bucket, credentials: credentials)
            prefix = location.prefix
        }
    }

    /// Part of every key: raised when objects are stored differently. (The
    /// processed key itself carries ``ProcessingVersion``, which changes
    /// when the same options would make different pixels, so that old
    /// objects are no longer found, and expire.)
    public static let layoutVersion = 1

    public enum Health: Sendable, Equatable {
        case ok
        case degraded(String)
    }

    public let configuration: Configuration
    public let client: S3Client
    let breaker: CircuitBreaker
    private let logger: Logger
    private let counters: Counters

    /// - Parameter metricsFactory: where its counters and timers go
    ///   (``ImagePipeline/Configuration/metricsFactory`` in a pipeline).
    public init(configuration: Configuration, logger: Logger = Logger(label: "darkroom.s3", factory: { _ in SwiftLogNoOpLogHandler() }),
                metricsFactory: any MetricsFactory = MetricsSystem.factory) throws(DarkroomError) {
        self.configuration = configuration
        client = try S3Client(configuration: configuration.client)
        breaker = CircuitBreaker(threshold: configuration.failureThreshold, cooldown: configuration.cooldown)
        self.logger = logger
        counters = Counters(factory: metricsFactory)
    }

    public func shutdown() async {
        await client.shutdown()
    }

    /// The object key for a processed key.
    public func objectKey(for processedKey: String) -> String {
        let digest = Hex.string(SHA256.hash(data: Data("v\(Self.layoutVersion)\n\(processedKey)".utf8)))
        return "\(configuration.prefix)results/\(digest.prefix(2))/\(digest)"
    }

    /// The object key for a source key.
    public func sourceObjectKey(for sourceKey: String) -> String {
        let digest = Hex.string(SHA256.hash(data: Data(sourceKey.utf8)))
        return "\(configuration.prefix)sources/\(digest.prefix(2))/\(digest)"
    }

    public var health: Health {
        switch breaker.state {
        case .closed: .ok
        case .open(let reason): .degraded(reason)
        }
    }

    /// Whether the bucket can be used with these credentials, said as the
    /// store said it. The server checks this once at start; a store that
    /// cannot be reached is skipped from then until a trial call succeeds.
    public func check() async throws(S3Error) {
        do {
            try await client.checkBucket()
        } catch {
            if error.isTransient { breaker.trip(error.description) }
            throw error
        }
    }

    /// The stored result, or nil on a miss, an error, or while the store is
    /// skipped.
    func image(for processedKey: String) async -> ImageResponse? {
        let key = objectKey(for: processedKey)
        guard let found = await call("get", countingSkips: true, { () throws(S3Error) in try await client.get(key) }) else { return nil }
        guard let object = found else {
            counters.misses.increment()
            return nil
        }
        guard let response = ImageResponse(sharedObject: object, key: processedKey) else {
            counters.errors("get").increment()
            logger.warning("an S3 result object is not readable; made again", metadata: ["key": "\(key)"])
            return nil
        }
        counters.hits.increment()
        return response
    }

    /// Stores a result; errors are counted and logged, never thrown: the
    /// answer has gone out already.
    func store(_ response: ImageResponse, for processedKey: String) async {
        let object = response.sharedObject
        let key = objectKey(for: processedKey)
        if await call("put", countingSkips: true, { () throws(S3Error) in
            try await client.put(key, data: object.data, contentType: object.contentType, metadata: object.metadata)
        }) != nil {
            counters.stores.increment()
        }
    }

    /// A source another replica downloaded, or nil.
    func source(for sourceKey: String) async -> SourceData? {
        guard configuration.storesSources else { return nil }
        let key = sourceObjectKey(for: sourceKey)
        guard let found = await call("get", countingSkips: false, { () throws(S3Error) in try await client.get(key) }) else { return nil }
        guard let source = found.flatMap(SourceData.init(sharedObject:)) else {
            counters.sourceMisses.increment()
            return nil
        }
        counters.sourceHits.increment()
        return source
    }

    /// Keeps a downloaded source for the other replicas.
    func store(_ source: SourceData, for sourceKey: String) async {
        guard configuration.storesSources else { return }
        let object = source.sharedObject
        let key = sourceObjectKey(for: sourceKey)
        _ = await call("put", countingSkips: false, { () throws(S3Error) in
            try await client.put(key, data: object.data, contentType: object.contentType, metadata: object.metadata)
        })
    }

    /// One call to the store, through the breaker: nil when it was skipped
    /// or failed (counted and logged), the call's result otherwise, its
    /// latency recorded.
    private func call<T: Sendable>(_ operation: String, countingSkips: Bool, _ body: () async throws(S3Error) -> T) async -> T? {
        guard breaker.allow() else {
            if countingSkips { counters.skipped.increment() }
            return nil
        }
        let started = ContinuousClock.now
        do {
            let result = try await body()
            counters.latency(operation).recordInterval(since: started)
            breaker.succeeded()
            return result
        } catch {
            counters.errors(operation).increment()
            // Transient or not (a refused signature will not mend itself
            // either), a failing store is skipped for a while rather than
            // asked again.
            breaker.failed(error.description)
            logger.warning("the S3 result cache failed; going on without it", metadata: ["error": "\(error)"])
            return nil
        }
    }

    /// Made once: `/metrics` shows them as darkroom_s3_*.
    private struct Counters: Sendable {
        let factory: any MetricsFactory
        let hits, misses, stores, skipped, sourceHits, sourceMisses: Counter
        init(factory: any MetricsFactory) {
            self.factory = factory
            hits = Counter(label: "darkroom_cache_hits_total", dimensions: [("cache", "s3")], factory: factory)
            misses = Counter(label: "darkroom_cache_misses_total", dimensions: [("cache", "s3")], factory: factory)
            stores = Counter(label: "darkroom_s3_stores_total", factory: factory)
            skipped = Counter(label: "darkroom_s3_skipped_total", factory: factory)
            sourceHits = Counter(label: "darkroom_cache_hits_total", dimensions: [("cache", "s3_source")], factory: factory)
            sourceMisses = Counter(label: "darkroom_cache_misses_total", dimensions: [("cache", "s3_source")], factory: factory)
        }
        func errors(_ operation: String) -> Counter {
            Counter(label: "darkroom_s3_errors_total", dimensions: [("operation", operation)], factory: factory)
        }
        func latency(_ operation: String) -> Timer {
            Timer(label: "darkroom_s3_duration_seconds", dimensions: [("operation", operation)], factory: factory)
        }
    }
}
