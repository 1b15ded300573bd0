public import Foundation
import Synchronization
import DarkroomImaging

/// Sources in S3: `s3://BUCKET/KEY` URLs, read with the S3 client, from the
/// buckets allowed; every other URL goes to the loader underneath.
///
/// Off unless configured: an image server that reads any bucket its
/// credentials can read would hand those buckets to anyone who writes a URL.
public final class S3SourceLoader: DataLoading {
    public struct Configuration: Sendable {
        public var endpoint: URL
        public var credentials: S3Credentials
        /// The buckets that may be read; `["*"]`: any the credentials can read.
        public var allowedBuckets: Set<String>
        /// Buckets never read, even under `*` (imgproxy's `IMGPROXY_S3_DENIED_BUCKETS`).
        public var deniedBuckets: Set<String> = []
        public var timeout: Duration = .seconds(30)
        public var maxObjectBytes = ImageLimits().maxSourceBytes

        public init(endpoint: URL, credentials: S3Credentials, allowedBuckets: Set<String>) {
            self.endpoint = endpoint
            self.credentials = credentials
            self.allowedBuckets = allowedBuckets
        }
    }

    public let configuration: Configuration
    private let fallback: any DataLoading
    private let clients = Locked<[String: S3Client]>([:])

    public init(configuration: Configuration, fallback: any DataLoading) {
        self.configuration = configuration
        self.fallback = fallback
    }

    public func shutdown() async {
        let all = clients.withLock { clients in
            defer { clients = [:] }
            return Array(clients.values)
        }
        for client in all { await client.shutdown() }
    }

    public func load(_ request: DataRequest, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse {
        guard request.url.scheme?.lowercased() == "s3" else {
            return try await fallback.load(request, progress: progress)
        }
        let url = request.url.absoluteString
        guard let bucket = request.url.host, S3Location.isBucketName(bucket) else {
            throw DarkroomError(.invalidURL, "\(url) is not an s3://BUCKET/KEY URL")
        }
        let key = String(request.url.path.drop { $0 == "/" })
        guard !key.isEmpty else { throw DarkroomError(.invalidURL, "\(url) names a bucket but no key") }
        guard !configuration.deniedBuckets.contains(bucket),
              configuration.allowedBuckets.contains("*") || configuration.allowedBuckets.contains(bucket) else {
            throw DarkroomError(.forbiddenSource, "\(url): the bucket \(bucket) is not among the S3 source buckets allowed")
        }
        let client = try client(for: bucket)
        let object: S3Client.Object?
        do throws(S3Error) {
            object = try await client.get(key)
        } catch {
            if error.message == S3Client.tooLarge {
                throw DarkroomError(.tooManyBytes, "\(url) is larger than \(configuration.maxObjectBytes) bytes")
            }
            if error.isTransient {
                throw DarkroomError(.networkFailure, "\(url) could not be read: \(error)", transient: true)
            }
            throw DarkroomError(.httpStatus, "\(url) could not be read: \(error)", statusCode: error.status)
        }
        guard let object else {
            throw DarkroomError(.httpStatus, "\(url) does not exist", statusCode: 404)
        }
        progress(object.data.count, object.data.count)
        guard !object.data.isEmpty else { throw DarkroomError(.emptyInput, "\(url) is empty") }
        guard case .image(let format) = ImageFormat.sniff(object.data) else {
            throw DarkroomError(.notAnImage, "\(url) is not an image in a format Darkroom reads")
        }
        return .fetched(SourceData(data: object.data, format: format, contentType: object.contentType, etag: object.etag, lastModified: object.lastModified))
    }

    private func client(for bucket: String) throws(DarkroomError) -> S3Client {
        if let client = clients.withLock({ $0[bucket] }) { return client }
        var client = S3Client.Configuration(endpoint: configuration.endpoint, bucket: bucket, credentials: configuration.credentials)
        client.timeout = configuration.timeout
        client.maxObjectBytes = configuration.maxObjectBytes
        let made = try S3Client(configuration: client)
        return clients.withLock { clients in
            if let existing = clients[bucket] { return existing }
            clients[bucket] = made
            return made
        }
    }
}
