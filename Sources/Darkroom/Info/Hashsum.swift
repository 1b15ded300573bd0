import Crypto
public import Foundation

/// Checksums of a source's bytes, as imgproxy Pro's `hashsums` and
/// `hashsum` options: to find duplicates, or to check that an origin
/// serves the bytes a page expects.
public enum Hashsum {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case md5, sha1, sha256, sha512
    }

    /// The checksum in lowercase hex.
    public static func hex(of data: Data, _ kind: Kind) -> String {
        switch kind {
        case .md5: Hex.string(Insecure.MD5.hash(data: data))
        case .sha1: Hex.string(Insecure.SHA1.hash(data: data))
        case .sha256: Hex.string(SHA256.hash(data: data))
        case .sha512: Hex.string(SHA512.hash(data: data))
        }
    }
}
