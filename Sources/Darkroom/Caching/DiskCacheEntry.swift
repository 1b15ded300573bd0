import Crypto
public import Foundation

/// One stored item: the data and what an HTTP cache needs to know of it.
public struct DiskCacheEntry: Sendable, Hashable {
    public var data: Data
    public var contentType: String?
    /// The origin's validators, for revalidation with If-None-Match and
    /// If-Modified-Since.
    public var etag: String?
    public var lastModified: String?
    /// When the data was fetched or last revalidated.
    public var storedAt: Date
    /// Anything else the owner needs back, such as a processed image's size.
    public var metadata: [String: String]

    public init(data: Data, contentType: String? = nil, etag: String? = nil, lastModified: String? = nil,
                storedAt: Date = Date(), metadata: [String: String] = [:]) {
        self.data = data
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
        self.storedAt = storedAt
        self.metadata = metadata
    }
}

/// The bytes of an entry file:
///
///     "DRKC" | version (1 byte) | header length (4 bytes, big-endian) | header (JSON) | data
///
/// The header holds the full key, the metadata, the data's length and its
/// 64-bit checksum (``Checksum``). A file whose magic, version, key, length
/// or checksum does not match is never served; files of version 1 (with a
/// SHA-256 of the data) read as misses and are replaced.
enum DiskCacheFormat {
    static let magic = Data("DRKC".utf8)
    static let version: UInt8 = 2

    struct Header: Codable {
        var key: String
        var contentType: String?
        var etag: String?
        var lastModified: String?
        var storedAt: Double
        var metadata: [String: String]?
        var length: Int
        var checksum: UInt64
    }

    /// The file's parts: the header, then the entry's bytes as they are
    /// (written one after the other, so a source of megabytes is not copied
    /// into one buffer first).
    static func encode(_ entry: DiskCacheEntry, key: String) throws -> [Data] {
        let header = Header(key: key, contentType: entry.contentType, etag: entry.etag, lastModified: entry.lastModified,
                            storedAt: entry.storedAt.timeIntervalSince1970,
                            metadata: entry.metadata.isEmpty ? nil : entry.metadata, length: entry.data.count,
                            checksum: Checksum.of(entry.data))
        let json = try JSONEncoder().encode(header)
        var head = Data(capacity: 9 + json.count)
        head.append(magic)
        head.append(version)
        withUnsafeBytes(of: UInt32(json.count).bigEndian) { head.append(contentsOf: $0) }
        head.append(json)
        return [head, entry.data]
    }

    enum Problem: Error, Equatable {
        case notAnEntry, otherVersion, damagedHeader, otherKey, wrongLength, wrongChecksum
    }

    static func decode(_ file: Data, key: String) -> Result<DiskCacheEntry, Problem> {
        guard file.count >= 9, file.prefix(4) == magic else { return .failure(.notAnEntry) }
        guard file[file.startIndex + 4] == version else { return .failure(.otherVersion) }
        let lengthBytes = file[(file.startIndex + 5)..<(file.startIndex + 9)]
        let headerLength = Int(lengthBytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        let bodyStart = file.startIndex + 9 + headerLength
        guard headerLength > 0, bodyStart <= file.endIndex,
              let header = try? JSONDecoder().decode(Header.self, from: file[(file.startIndex + 9)..<bodyStart])
        else { return .failure(.damagedHeader) }
        guard header.key == key else { return .failure(.otherKey) }
        let data = file[bodyStart...]
        guard data.count == header.length else { return .failure(.wrongLength) }
        guard Checksum.of(data) == header.checksum else { return .failure(.wrongChecksum) }
        return .success(DiskCacheEntry(data: Data(data), contentType: header.contentType, etag: header.etag,
                                       lastModified: header.lastModified, storedAt: Date(timeIntervalSince1970: header.storedAt),
                                       metadata: header.metadata ?? [:]))
    }

    /// The file name for a key: its SHA-256 in hex, so no key can name a
    /// path outside the folder.
    static func fileName(for key: String) -> String {
        Hex.string(SHA256.hash(data: Data(key.utf8)))
    }
}
