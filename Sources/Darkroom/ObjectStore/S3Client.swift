import AsyncHTTPClient
public import Foundation
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A small S3 client: the calls a cache needs (GET, HEAD, PUT, DELETE, list)
/// against one bucket of AWS S3 or any S3-compatible store, signed with
/// Signature Version 4, each with a time limit.
///
/// Path-style addressing (`ENDPOINT/BUCKET/KEY`), which self-hosted stores
/// (SeaweedFS, MinIO, Ceph) expect and AWS still answers.
public final class S3Client: Sendable {
    public struct Configuration: Sendable {
        /// Scheme, host and port, such as `http://127.0.0.1:8333`.
        public var endpoint: URL
        public var bucket: String
        public var credentials: S3Credentials
        /// The longest a read (GET, HEAD, list) may take, answer included:
        /// a request waits for it.
        public var timeout: Duration = .seconds(2)
        /// The longest a write (PUT, DELETE) may take: writes follow the
        /// answer, nobody waits for them, and a store's first write to a
        /// bucket can take seconds while it allocates space.
        public var writeTimeout: Duration = .seconds(15)
        /// The largest object a GET reads.
        public var maxObjectBytes = 64 << 20

        public init(endpoint: URL, bucket: String, credentials: S3Credentials) {
            self.endpoint = endpoint
            self.bucket = bucket
            self.credentials = credentials
        }

        /// The endpoint from `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`;
        /// nil: AWS's own for the region.
        public static func endpoint(from environment: [String: String], region: String) -> URL {
            let named = environment["AWS_ENDPOINT_URL_S3"].flatMap { $0.isEmpty ? nil : $0 }
                ?? environment["AWS_ENDPOINT_URL"].flatMap { $0.isEmpty ? nil : $0 }
            return named.flatMap(URL.init(string:)) ?? URL(string: "https://s3.\(region).amazonaws.com")!
        }
    }

    /// An object as read: its bytes, content type and user metadata
    /// (`x-amz-meta-*`, names without the prefix, lower case).
    public struct Object: Sendable {
        public var data: Data
        public var contentType: String?
        public var metadata: [String: String]
        public var etag: String?
        public var lastModified: String?

        public init(data: Data, contentType: String? = nil, metadata: [String: String] = [:], etag: String? = nil, lastModified: String? = nil) {
            self.data = data
            self.contentType = contentType
            self.metadata = metadata
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    public let configuration: Configuration
    private let signer: S3Signer
    private let client: HTTPClient

    public init(configuration: Configuration) throws(DarkroomError) {
        guard let scheme = configuration.endpoint.scheme, ["http", "https"].contains(scheme), configuration.endpoint.host != nil else {
            throw DarkroomError(.invalidOption, "the S3 endpoint \(configuration.endpoint.absoluteString) is not an http(s) URL")
        }
        guard S3Location.isBucketName(configuration.bucket) else {
            throw DarkroomError(.invalidOption, "\"\(configuration.bucket)\" is not an S3 bucket name")
        }
        self.configuration = configuration
        signer = S3Signer(credentials: configuration.credentials)
        let timeout = TimeAmount(configuration.timeout)
        client = HTTPClient(eventLoopGroupProvider: .singleton,
                            configuration: .init(redirectConfiguration: .disallow, timeout: .init(connect: timeout), decompression: .disabled))
    }

    public func shutdown() async {
        try? await client.shutdown()
    }

    deinit {
        client.shutdown { _ in }
    }

    /// The object, or nil when there is none.
    public func get(_ key: String) async throws(S3Error) -> Object? {
        let answer = try await send("GET", key: key, acceptingMissing: true)
        guard answer.status != 404 else { return nil }
        return Object(data: answer.body, contentType: answer.headers.first(name: "content-type"), metadata: Self.metadata(answer.headers),
                      etag: answer.headers.first(name: "etag"), lastModified: answer.headers.first(name: "last-modified"))
    }

    /// The object's metadata, or nil when there is no such object.
    public func head(_ key: String) async throws(S3Error) -> [String: String]? {
        let answer = try await send("HEAD", key: key, acceptingMissing: true)
        return answer.status == 404 ? nil : Self.metadata(answer.headers)
    }

    /// Writes the whole object in one request: readers see the old object
    /// or the new one, never a part.
    public func put(_ key: String, data: Data, contentType: String? = nil, metadata: [String: String] = [:]) async throws(S3Error) {
        var headers: [String: String] = [:]
        headers["content-type"] = contentType
        for (name, value) in metadata { headers["x-amz-meta-\(name.lowercased())"] = value }
        _ = try await send("PUT", key: key, headers: headers, body: data)
    }

    public func delete(_ key: String) async throws(S3Error) {
        _ = try await send("DELETE", key: key, acceptingMissing: true)
    }

    /// One page of the keys under `prefix` (ListObjectsV2, at most 1,000),
    /// and the token for the next page, if any.
    public func list(prefix: String, continuation: String? = nil) async throws(S3Error) -> (keys: [String], next: String?) {
        var query = [("list-type", "2"), ("prefix", prefix)]
        if let continuation { query.append(("continuation-token", continuation)) }
        let answer = try await send("GET", key: nil, query: query)
        let text = String(decoding: answer.body, as: UTF8.self)
        let truncated = XMLText.first("IsTruncated", in: text) == "true"
        return (XMLText.all("Key", in: text), truncated ? XMLText.first("NextContinuationToken", in: text) : nil)
    }

    /// Every key under `prefix`, page after page.
    public func keys(under prefix: String) async throws(S3Error) -> [String] {
        var keys: [String] = []
        var token: String?
        repeat {
            let page = try await list(prefix: prefix, continuation: token)
            keys += page.keys
            token = page.next
        } while token != nil
        return keys
    }

    /// Whether the bucket is there and these credentials may use it; throws
    /// what the store said when not.
    public func checkBucket() async throws(S3Error) {
        // A list of one key rather than HEAD: a HEAD answer has no body, and
        // the body is where the store says what it refused.
        _ = try await send("GET", key: nil, query: [("list-type", "2"), ("max-keys", "1")])
    }

    /// Creates the bucket; one that exists already and is ours is fine.
    public func createBucket() async throws(S3Error) {
        do {
            _ = try await send("PUT", key: nil)
        } catch where error.code == "BucketAlreadyOwnedByYou" || error.code == "BucketAlreadyExists" {
            return
        }
    }

    // MARK: - Requests

    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    private func send(_ method: String, key: String?, query: [(String, String)] = [], headers: [String: String] = [:],
                      body: Data = Data(), acceptingMissing: Bool = false) async throws(S3Error) -> Answer {
        let endpoint = configuration.endpoint
        var path = endpoint.path.hasSuffix("/") ? String(endpoint.path.dropLast()) : endpoint.path
        path += "/" + configuration.bucket
        if let key { path += "/" + S3Signer.encode(key, keepSlash: true) }
        let resource = configuration.bucket + (key.map { "/\($0)" } ?? "")
        let hostHeader = endpoint.host!.contains(":") ? "[\(endpoint.host!)]" : endpoint.host!
        var signedInput = headers
        signedInput["host"] = hostHeader + (endpoint.port.map { ":\($0)" } ?? "")
        let payloadHash = body.isEmpty ? S3Signer.emptyPayloadHash : S3Signer.payloadHash(body)
        let signed = signer.sign(method: method, path: path, query: query, headers: signedInput, payloadHash: payloadHash, date: Date())

        let queryText = query.map { "\(S3Signer.encode($0.0, keepSlash: false))=\(S3Signer.encode($0.1, keepSlash: false))" }.joined(separator: "&")
        let base = "\(endpoint.scheme!)://\(signedInput["host"]!)"
        var request = HTTPClientRequest(url: base + path + (queryText.isEmpty ? "" : "?" + queryText))
        request.method = HTTPMethod(rawValue: method)
        for (name, value) in signed where name != "host" { request.headers.add(name: name, value: value) }
        if !body.isEmpty || method == "PUT" {
            request.body = .bytes(ByteBuffer(data: body))
        }
        let limit = configuration.maxObjectBytes
        let writes = method == "PUT" || method == "DELETE"
        let deadline = NIODeadline.now() + TimeAmount(writes ? configuration.writeTimeout : configuration.timeout)
        let answer: Answer
        do {
            let response = try await client.execute(request, deadline: deadline)
            let collected = try await response.body.collect(upTo: method == "HEAD" ? 0 : limit)
            answer = Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: collected))
        } catch {
            throw S3Error(operation: method, resource: resource, status: nil, code: nil, message: Self.describe(error, endpoint: base))
        }
        if (200..<300).contains(answer.status) || (acceptingMissing && answer.status == 404 && key != nil && Self.isMissingKey(answer)) {
            return answer
        }
        let (code, message) = S3Error.fields(ofErrorBody: answer.body)
        throw S3Error(operation: method, resource: resource, status: answer.status,
                      code: code, message: message ?? (answer.status == 403 ? "access denied" : ""))
    }

    /// A 404 for a missing key, not for a missing bucket (that one is a
    /// configuration error, reported as such). HEAD answers have no body to
    /// tell them apart, so a HEAD 404 counts as a missing key.
    private static func isMissingKey(_ answer: Answer) -> Bool {
        S3Error.fields(ofErrorBody: answer.body).code != "NoSuchBucket"
    }

    private static func metadata(_ headers: HTTPHeaders) -> [String: String] {
        var metadata: [String: String] = [:]
        for header in headers where header.name.lowercased().hasPrefix("x-amz-meta-") {
            metadata[String(header.name.lowercased().dropFirst("x-amz-meta-".count))] = header.value
        }
        return metadata
    }

    /// The message of a GET whose object is over ``Configuration/maxObjectBytes``.
    static let tooLarge = "the object is larger than the limit"

    private static func describe(_ error: any Error, endpoint: String) -> String {
        if let error = error as? HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout, .connectTimeout: return "no answer from \(endpoint) in time"
            case .remoteConnectionClosed: return "\(endpoint) closed the connection"
            default: break
            }
        }
        if "\(error)".lowercased().contains("connect") {
            return "cannot connect to \(endpoint)"
        }
        if error is NIOTooManyBytesError { return tooLarge }
        return "\(endpoint): \(error)"
    }
}
