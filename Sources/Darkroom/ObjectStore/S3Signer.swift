import Crypto
public import Foundation

/// AWS Signature Version 4, as S3 and S3-compatible stores check it.
///
/// The signature covers the method, the path, the query, the headers named
/// in `SignedHeaders` and the SHA-256 of the body, with a key derived from
/// the secret, the day, the region and the service. S3 takes the path as it
/// is sent (each segment percent-encoded once), unlike the other services.
public struct S3Signer: Sendable {
    public var credentials: S3Credentials
    public var service = "s3"

    public init(credentials: S3Credentials) {
        self.credentials = credentials
    }

    /// The SHA-256 of no bytes: the payload hash of GET, HEAD and DELETE.
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    public static func payloadHash(_ body: Data) -> String {
        Hex.string(SHA256.hash(data: body))
    }

    /// The headers to send: `headers`, plus `x-amz-date`,
    /// `x-amz-content-sha256` and `authorization`. Every header given is
    /// signed; `host` must be among them.
    ///
    /// - Parameters:
    ///   - path: the request's path, already percent-encoded as it is sent.
    ///   - query: the query's names and values, not encoded.
    public func sign(method: String, path: String, query: [(String, String)] = [], headers: [String: String],
                     payloadHash: String, date: Date) -> [String: String] {
        let stamp = AMZDate(date)
        var all: [String: String] = [:]
        for (name, value) in headers { all[name.lowercased()] = Self.trimmed(value) }
        all["x-amz-date"] = stamp.dateTime
        if let token = credentials.sessionToken { all["x-amz-security-token"] = token }
        all["x-amz-content-sha256"] = payloadHash

        let names = all.keys.sorted()
        let signedHeaders = names.joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map { pair in
            (Self.encode(pair.0, keepSlash: false), Self.encode(pair.1, keepSlash: false))
        }
        let canonicalQuery = encodedQuery
            .sorted { a, b in a.name == b.name ? a.value < b.value : a.name < b.name }
            .map { pair in "\(pair.name)=\(pair.value)" }
            .joined(separator: "&")
        let canonicalHeaders = names.map { name in "\(name):\(all[name] ?? "")\n" }.joined()
        let canonicalRequest = [method, path.isEmpty ? "/" : path, canonicalQuery, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")

        let scope = "\(stamp.day)/\(credentials.region)/\(service)/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", stamp.dateTime, scope,
                            Hex.string(SHA256.hash(data: Data(canonicalRequest.utf8)))].joined(separator: "\n")
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretAccessKey)".utf8))
        for part in [stamp.day, credentials.region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        let signature = Hex.string(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
        all["authorization"] = "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope),SignedHeaders=\(signedHeaders),Signature=\(signature)"
        return all
    }

    /// Percent-encoding as Signature Version 4 wants it: everything but
    /// A-Z a-z 0-9 - _ . ~ (and `/` in paths), upper-case hex.
    public static func encode(_ text: String, keepSlash: Bool) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where keepSlash:
                out.append("/")
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    /// Leading and trailing spaces removed, inner runs of spaces made one.
    private static func trimmed(_ value: String) -> String {
        value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }
}

/// The two forms of a request's time that Signature Version 4 uses, in UTC.
struct AMZDate {
    /// 20130524T000000Z
    let dateTime: String
    /// 20130524
    let day: String

    init(_ date: Date) {
        var time = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ n: Int32) -> String { String(n).leftPadded(to: 2) }
        day = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))"
        dateTime = "\(day)T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
