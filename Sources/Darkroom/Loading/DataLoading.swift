public import Foundation

/// Something that fetches a source's bytes: over HTTP by default, or a
/// stand-in in tests.
public protocol DataLoading: Sendable {
    /// Fetches `request.url`.
    ///
    /// - Parameter progress: called with the bytes received so far and the
    ///   expected total, when known.
    /// - Throws: ``DarkroomError`` saying what went wrong: the status, the
    ///   network, a timeout, a body over the limit, a body that is not an image.
    func load(_ request: DataRequest, progress: @escaping @Sendable (Int, Int?) -> Void) async throws(DarkroomError) -> DataResponse
}

/// What to fetch, with the validators of a copy already held, if any.
public struct DataRequest: Sendable, Hashable {
    public var url: URL
    /// Sent as If-None-Match, to revalidate a cached copy.
    public var etag: String?
    /// Sent as If-Modified-Since, to revalidate a cached copy.
    public var lastModified: String?
    /// A client's header fields passed on (its cookies, and the headers a
    /// server names: imgproxy's `IMGPROXY_COOKIE_PASSTHROUGH` and
    /// `IMGPROXY_REQUEST_HEADERS_PASSTHROUGH`), as names and values, sent to
    /// the source's host and its subdomains only, redirects included.
    public var passedHeaders: [PassedHeader]

    public init(url: URL, etag: String? = nil, lastModified: String? = nil, passedHeaders: [PassedHeader] = []) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.passedHeaders = passedHeaders
    }
}

/// One header field of a client's request, sent on to its source.
public struct PassedHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// What came back.
public enum DataResponse: Sendable, Hashable {
    /// A new body, checked to be an image.
    case fetched(SourceData)
    /// 304: the copy held is still good.
    case notModified
}

/// A source's bytes, checked to be an image, with its HTTP validators.
public struct SourceData: Sendable, Hashable {
    public var data: Data
    public var format: ImageFormat
    public var contentType: String?
    public var etag: String?
    public var lastModified: String?
    /// The origin's own caching headers, for a server that passes them on
    /// (imgproxy's `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
    public var cacheControl: String?
    public var expires: String?
    /// The origin's fields a server passes on to its answers (imgproxy
    /// Pro's `IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH`), as it sent them.
    public var responseHeaders: [PassedHeader] = []

    public init(data: Data, format: ImageFormat, contentType: String? = nil, etag: String? = nil, lastModified: String? = nil,
                cacheControl: String? = nil, expires: String? = nil) {
        self.data = data
        self.format = format
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.cacheControl = cacheControl
        self.expires = expires
    }
}

extension PassedHeader {
    /// Fields as one text, a `name: value` line each (a field's value
    /// holds no line break): how caches keep them; nil for none.
    static func joined(_ fields: [PassedHeader]) -> String? {
        fields.isEmpty ? nil : fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// The fields of ``joined(_:)``'s text.
    static func split(_ text: String?) -> [PassedHeader] {
        guard let text else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return PassedHeader(name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
    }
}
