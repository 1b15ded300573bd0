import Crypto
public import Foundation

/// Where an image comes from.
public enum ImageSource: Sendable, Hashable {
    /// Fetched over http or https, through the disk cache.
    case url(URL)
    /// Bytes the caller already has (a local file, an upload), with a key that
    /// names them for the caches, such as the file's path and modification time.
    case data(Data, key: String)
    /// Fetched as ``url(_:)``, sending header fields of a client's request
    /// (its cookies, say): cached apart for each set of them, as the origin
    /// may answer each client its own image.
    case urlWithHeaders(URL, headers: [PassedHeader])

    /// The key under which the source's bytes are cached.
    public var cacheKey: String {
        switch self {
        case .url(let url): "url:\(url.absoluteString)"
        case .data(_, let key): "data:\(key)"
        case .urlWithHeaders(let url, let headers):
            "url:\(url.absoluteString)|headers:"
                + Hex.string(SHA256.hash(data: Data(headers.map { "\($0.name.lowercased()):\($0.value)" }.joined(separator: "\n").utf8)).prefix(16))
        }
    }

    public var url: URL? {
        switch self {
        case .url(let url), .urlWithHeaders(let url, _): url
        case .data: nil
        }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.cacheKey == rhs.cacheKey }
    public func hash(into hasher: inout Hasher) { hasher.combine(cacheKey) }
}

/// One image to fetch and process.
///
/// ```swift
/// let request = ImageRequest(url: photoURL, operations: [.resize(Resize(width: 600, height: 600)), .sepia(intensity: 0.8)])
/// ```
public struct ImageRequest: Sendable, Hashable {
    public var source: ImageSource
    public var options: ProcessingOptions
    public var priority: WorkPriority
    /// What the pipeline may do when no cache has the result.
    public var admission: Admission
    /// No cache is read: the source is fetched from its origin and
    /// processed anew, and the new result stored in the caches (imgproxy
    /// Pro's `bypass_cache`). Such a request shares work only with another
    /// that bypasses the caches.
    public var bypassesCache = false

    /// What the pipeline may do for a request that no cache answers.
    public enum Admission: Sendable, Hashable {
        /// Fetch and process, however much work is waiting.
        case always
        /// Fetch and process, unless more processing runs are waiting than
        /// ``ImagePipeline/Configuration/maxWaitingProcessing``: then fail
        /// at once with ``DarkroomError/Kind/overloaded``. Cache hits are
        /// answered either way.
        case unlessOverloaded
        /// Answer from the caches only (memory, disk, shared): a miss fails
        /// at once with ``DarkroomError/Kind/notCached``, and nothing is
        /// fetched or processed.
        case cacheOnly
    }

    public init(source: ImageSource, options: ProcessingOptions = ProcessingOptions(), priority: WorkPriority = .normal,
                admission: Admission = .always) {
        self.source = source
        self.options = options
        self.priority = priority
        self.admission = admission
    }

    public init(url: URL, operations: [ImageOperation] = [], output: OutputOptions = OutputOptions(), priority: WorkPriority = .normal) {
        self.init(source: .url(url), options: ProcessingOptions(operations: operations, output: output), priority: priority)
    }

    /// The key of the processed result: source and processing.
    public var processedKey: String { "\(source.cacheKey)|\(options.identifier)|p\(ProcessingVersion.current)" }
}

/// A processed image and where it came from.
public struct ImageResponse: Sendable, Hashable {
    public enum CacheType: String, Sendable, Hashable, Codable {
        /// `shared`: the result cache that replicas share (S3).
        case memory, disk, shared
    }

    public var image: ProcessedImage
    /// The cache that answered, or nil when the image was made for this request.
    public var cacheType: CacheType?
    /// The source's validators.
    public var sourceETag: String?
    public var sourceLastModified: String?
    /// The source's own `Cache-Control` and `Expires`, as its origin sent them.
    public var sourceCacheControl: String?
    public var sourceExpires: String?
    /// The origin's fields passed on to answers (``DataLoader/Configuration/passedResponseHeaders``).
    public var sourceHeaders: [PassedHeader] = []
    /// A strong HTTP validator for these bytes, quoted: made once, when the
    /// image is made or read from disk, from the processed key and the
    /// source's validators, so it is the same across restarts and replicas
    /// and changes with the options.
    public let etag: String

    init(image: ProcessedImage, cacheType: CacheType?, sourceETag: String?, sourceLastModified: String?, key: String) {
        self.image = image
        self.cacheType = cacheType
        self.sourceETag = sourceETag
        self.sourceLastModified = sourceLastModified
        etag = Self.etag(key: key, sourceETag: sourceETag, sourceLastModified: sourceLastModified, length: image.byteCount)
    }

    static func etag(key: String, sourceETag: String?, sourceLastModified: String?, length: Int) -> String {
        let material = "\(key)|\(sourceETag ?? "")|\(sourceLastModified ?? "")|\(length)"
        return "\"" + Hex.string(SHA256.hash(data: Data(material.utf8)).prefix(16)) + "\""
    }
}

/// What happens to a request as it goes, in order.
public enum ImageTaskEvent: Sendable {
    /// Bytes of the source received so far, and the total when known.
    case progress(received: Int, expected: Int?)
    /// The original is here (downloaded or from the disk cache), before processing:
    /// a viewer can show it at once.
    case original(SourceData)
    case finished(ImageResponse)
    case failed(DarkroomError)
}

/// Events the shared jobs publish to their waiters.
enum PipelineEvent: Sendable {
    case progress(received: Int, expected: Int?)
    case original(SourceData)
}
