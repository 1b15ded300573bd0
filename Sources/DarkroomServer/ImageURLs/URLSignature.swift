import Crypto
import Foundation

/// imgproxy's URL signature: URL-safe base64, without padding, of
/// HMAC-SHA256 keyed with `key` over `salt` followed by the path after the
/// signature segment (such as `/rs:fill:300:400:0/g:sm/aHR0cDovL2V4...`),
/// the digest cut to its first `size` bytes when imgproxy's
/// `IMGPROXY_SIGNATURE_SIZE` asks for shorter URLs.
public struct URLSignature: Sendable, Hashable {
    public let key: [UInt8]
    public let salt: [UInt8]
    /// Bytes of the digest the signature carries, 1 to 32.
    public let size: Int

    /// - Parameters: key and salt in hex, as imgproxy takes them; `size`
    ///   from 1 to 32 bytes.
    /// - Throws: when either is not hex, or the size is out of range.
    public init(hexKey: String, hexSalt: String, size: Int = 32) throws {
        guard let key = Self.bytes(hex: hexKey), !key.isEmpty else {
            throw SignatureError.notHex("key")
        }
        guard let salt = Self.bytes(hex: hexSalt) else {
            throw SignatureError.notHex("salt")
        }
        guard (1...32).contains(size) else { throw SignatureError.size(size) }
        self.key = key
        self.salt = salt
        self.size = size
    }

    public enum SignatureError: Error, CustomStringConvertible {
        case notHex(String)
        case size(Int)
        public var description: String {
            switch self {
            case .notHex(let what): "the \(what) must be an even number of hex digits"
            case .size(let size): "the signature size must be from 1 to 32 bytes, not \(size)"
            }
        }
    }

    /// The signature for a path.
    public func sign(_ path: some StringProtocol) -> String {
        var mac = HMAC<SHA256>(key: SymmetricKey(data: key))
        mac.update(data: salt)
        mac.update(data: Array(path.utf8))
        return Data(Data(mac.finalize()).prefix(size)).base64URLEncodedString()
    }

    /// Whether `signature` is right for `path`: the canonical encoding,
    /// compared in constant time. (Decoding first would also accept
    /// variants that differ in the last character's unused bits.)
    public func verify(_ signature: some StringProtocol, path: some StringProtocol) -> Bool {
        let expected = Array(sign(path).utf8), given = Array(signature.utf8)
        guard given.count == expected.count else { return false }
        return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// The bytes a hex string spells, or nil (also for odd lengths).
    package static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i...i + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}

extension Data {
    /// URL-safe base64 (RFC 4648 §5) without padding.
    func base64URLEncodedString() -> String {
        base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes URL-safe base64, with or without padding.
    init?(base64URLEncoded text: String) {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        self.init(base64Encoded: standard)
    }
}
