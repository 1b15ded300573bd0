import Darkroom
import Foundation
import HTTPTypes
import Synchronization

/// Image URLs already parsed and verified, by path: a repeated URL costs one
/// dictionary lookup instead of a parse, a signature check and a key.
///
/// Only URLs that parsed and verified are kept, so a bad URL is refused
/// anew each time. A URL with an expiry is checked against it on every use.
/// When full, the cache is emptied and fills again: hot URLs come back
/// within a request each.
final class ParsedURLCache: Sendable {
    struct Entry: Sendable {
        /// The request for each negotiated output format (nil: the source's).
        var request: ImageRequest
        /// `request.processedKey`, made once.
        var processedKey: String
        var negotiated: Bool
        var expires: Date?
        /// When the URL names a file name or asks for an attachment.
        var disposition: ContentDisposition?
        /// A watermark to fetch (`wmu`) before `request` is processed.
        var watermarkSource: URL?

        /// The fields an answer adds for this URL.
        func headers(for format: ImageFormat) -> HTTPFields {
            var fields = HTTPFields()
            if negotiated { fields[.vary] = "Accept" }
            if let disposition { fields[.contentDisposition] = disposition.value(for: format) }
            return fields
        }
    }

    private let limit: Int
    private let entries = Mutex<[String: Entry]>([:])

    init(limit: Int = 10_000) {
        self.limit = limit
    }

    /// `path` with what the Accept header allows: the same path asked with
    /// different Accept headers can be different work.
    static func key(path: Substring, accept: AcceptedFormats) -> String {
        "\(accept.key) \(path)"
    }

    func entry(for key: String, now: Date = Date()) -> Entry? {
        guard let entry = entries.withLock({ $0[key] }) else { return nil }
        if let expires = entry.expires, expires <= now { return nil }
        return entry
    }

    func store(_ entry: Entry, for key: String) {
        entries.withLock { e in
            if e.count >= limit { e.removeAll(keepingCapacity: true) }
            e[key] = entry
        }
    }
}
