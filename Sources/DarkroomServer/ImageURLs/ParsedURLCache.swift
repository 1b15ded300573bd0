import Darkroom
import Foundation
import Synchronization
import DarkroomImaging

/// Image URLs already parsed and verified, by target and Accept: a repeated URL costs one
/// dictionary lookup instead of a parse, a signature check and a key.
///
/// Only URLs that parsed and verified are kept, so a bad URL is refused
/// anew each time. A URL with an expiry is checked against it on every use.
/// It holds at most ``maxBytes`` (keys and entries, counted from their
/// strings) and ``limit`` entries; when either is reached, the cache is
/// emptied and fills again: hot URLs come back within a request each.
final class ParsedURLCache: Sendable {
    struct Entry: Sendable {
        /// The request for each negotiated output format (nil: the source's).
        var request: ImageRequest
        /// `request.processedKey`, made once.
        var processedKey: String
        var negotiated: Bool
        /// Whether the answer depends on client hints (the server reads them).
        var varyByHints = false
        var expires: Date?
        /// When the URL names a file name or asks for an attachment.
        var disposition: ContentDisposition?
        /// Watermarks to fetch (`wmu`, one a chained pipeline) before
        /// `request` is processed.
        var watermarkSources: [URL] = []
        /// The source came encrypted: its failures are answered as one
        /// (``EncryptedSource``).
        var sourceIsEncrypted = false
        /// The URL's own fallback image (`fiu`), over the server's.
        var fallbackSource: URL?
        /// The server's own fields on every answer (`--custom-response-header`).
        var customHeaders: [PassedHeader] = []
        /// imgproxy's debug fields go on the answer (``debugFields(for:)``).
        var debugHeaders = false

        /// The fields an answer adds for this URL, as names and values: as
        /// imgproxy's, no type sniffing and no scripts, whatever the bytes
        /// (an image opened as a page runs nothing).
        func headers(for image: ProcessedImage) -> [(String, String)] {
            let format = image.format
            var fields: [(String, String)] = [("X-Content-Type-Options", "nosniff"), ("Content-Security-Policy", "script-src 'none'")]
            switch (negotiated, varyByHints) {
            case (true, false): fields.append(("Vary", "Accept"))
            case (true, true): fields.append(("Vary", "Accept, " + ClientHints.varyNames))
            case (false, true): fields.append(("Vary", ClientHints.varyNames))
            case (false, false): break
            }
            if let disposition { fields.append(("Content-Disposition", disposition.value(for: format))) }
            for header in customHeaders { fields.append((header.name, header.value)) }
            if debugHeaders { fields += Self.debugFields(for: image) }
            return fields
        }

        /// imgproxy's debug fields (`IMGPROXY_ENABLE_DEBUG_HEADERS`): the
        /// source's length (where known) and size, and the answer's size.
        static func debugFields(for image: ProcessedImage) -> [(String, String)] {
            var fields: [(String, String)] = []
            if let bytes = image.source.bytes { fields.append(("X-Origin-Content-Length", String(bytes))) }
            fields += [("X-Origin-Width", String(image.source.width)), ("X-Origin-Height", String(image.source.height)),
                       ("X-Result-Width", String(image.width)), ("X-Result-Height", String(image.height))]
            return fields
        }
    }

    /// A URL as it arrived: the request target and the Accept header, both
    /// as sent. Two requests with the same key are the same work, and a hit
    /// needs neither a new string nor the Accept header parsed. An Accept
    /// header longer than browsers send is kept as what it means (the
    /// formats it takes), so that long headers cannot grow the cache.
    struct Key: Hashable, Sendable {
        var target: String
        var accept: String
        /// The client hints read (``ClientHints/key``), where the server reads them.
        var hints: String

        init(target: String, accept: String, hints: String = "") {
            self.target = target
            self.accept = accept.utf8.count <= Self.longestAcceptKept ? accept : "\u{0}" + AcceptedFormats(accept).key
            self.hints = hints
        }

        /// Chromium's and Firefox's image Accept headers are under 100 bytes.
        static let longestAcceptKept = 256

        var bytes: Int { target.utf8.count + accept.utf8.count + hints.utf8.count }
    }

    /// An entry as held: a reference, so that a cache hit reads the few
    /// fields it needs without copying the whole request out (an
    /// `ImageRequest` is a large value; copying it showed in a hit's profile).
    final class Stored: Sendable {
        let entry: Entry
        /// The fields of this URL's usual hit, once it has had one.
        let hitHead = AtomicLazyReference<HitHead>()
        init(_ entry: Entry) { self.entry = entry }
    }

    private struct State {
        var entries: [Key: Stored] = [:]
        var bytes = 0
    }

    private let limit: Int
    let maxBytes: Int
    private let state = Locked(State())

    init(limit: Int = 10_000, maxBytes: Int = 8 << 20) {
        self.limit = limit
        self.maxBytes = maxBytes
    }

    /// What the cache holds now, counted as ``store(_:for:)`` counts it
    /// (in /metrics).
    var bytes: Int { state.withLock { $0.bytes } }

    func entry(for key: Key, now: Date? = nil) -> Entry? {
        stored(for: key, now: now)?.entry
    }

    /// The entry for `key` as held, unless its URL has expired.
    func stored(for key: Key, now: Date? = nil) -> Stored? {
        guard let stored = state.withLock({ $0.entries[key] }) else { return nil }
        // The clock is read only for a URL with an expiry.
        if let expires = stored.entry.expires, expires <= now ?? Date() { return nil }
        return stored
    }

    func store(_ entry: Entry, for key: Key) {
        // The key twice (the request holds the source and options again),
        // the processed key, and what every entry holds besides.
        let cost = 2 * key.bytes + entry.processedKey.utf8.count + 512
        state.withLock { state in
            if state.entries[key] != nil { return }
            if state.entries.count >= limit || state.bytes + cost > maxBytes {
                state.entries.removeAll(keepingCapacity: false)
                state.bytes = 0
            }
            state.entries[key] = Stored(entry)
            state.bytes += cost
        }
    }
}
