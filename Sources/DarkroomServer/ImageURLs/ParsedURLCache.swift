import Darkroom
import Foundation
import Synchronization

/// Image URLs already parsed and verified, by target and Accept: a repeated URL costs one
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

        /// The fields an answer adds for this URL, as names and values: as
        /// imgproxy's, no type sniffing and no scripts, whatever the bytes
        /// (an image opened as a page runs nothing).
        func headers(for format: ImageFormat) -> [(String, String)] {
            var fields: [(String, String)] = [("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "script-src 'none'")]
            if negotiated { fields.append(("Vary", "Accept")) }
            if let disposition { fields.append(("Content-Disposition", disposition.value(for: format))) }
            return fields
        }
    }

    /// A URL as it arrived: the request target and the Accept header, both
    /// as sent. Two requests with the same key are the same work, and a hit
    /// needs neither a new string nor the Accept header parsed.
    struct Key: Hashable, Sendable {
        var target: String
        var accept: String
    }

    private let limit: Int
    private let entries = Mutex<[Key: Entry]>([:])

    init(limit: Int = 10_000) {
        self.limit = limit
    }

    func entry(for key: Key, now: Date = Date()) -> Entry? {
        guard let entry = entries.withLock({ $0[key] }) else { return nil }
        if let expires = entry.expires, expires <= now { return nil }
        return entry
    }

    func store(_ entry: Entry, for key: Key) {
        entries.withLock { e in
            if e.count >= limit { e.removeAll(keepingCapacity: true) }
            e[key] = entry
        }
    }
}
