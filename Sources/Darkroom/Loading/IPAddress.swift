import Foundation

/// An IPv4 or IPv6 address as bytes, with what kind of network it is on.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]   // 4 or 16

    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// Parses a literal such as "10.0.0.1", "::1" or "[::ffff:127.0.0.1]".
    public init?(_ text: String) {
        let literal = text.hasPrefix("[") && text.hasSuffix("]") ? String(text.dropFirst().dropLast()) : text
        var v4 = in_addr()
        if inet_pton(AF_INET, literal, &v4) == 1 {
            self.bytes = withUnsafeBytes(of: v4) { Array($0) }
            return
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, literal, &v6) == 1 {
            self.bytes = withUnsafeBytes(of: v6) { Array($0) }
            return
        }
        return nil
    }

    public var isIPv6: Bool { bytes.count == 16 }

    public var description: String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        bytes.withUnsafeBytes { raw in
            _ = inet_ntop(isIPv6 ? AF_INET6 : AF_INET, raw.baseAddress, &buffer, socklen_t(buffer.count))
        }
        let length = buffer.firstIndex(of: 0) ?? buffer.count
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// For a URL's host: IPv6 in brackets.
    var hostLiteral: String { isIPv6 ? "[\(description)]" : description }

    /// Why a server should not fetch from this address, or nil when it is
    /// a public address (see `SpecialAddresses`).
    public var privateReason: String? {
        SpecialAddresses.reason(bytes)
    }
}
