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
    /// a public address.
    public var privateReason: String? {
        if isIPv6 {
            let b = bytes
            if b.allSatisfy({ $0 == 0 }) { return "the unspecified address" }
            if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return "loopback" }
            if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF { return "an IPv4 address inside IPv6" }
            if b[0..<12].allSatisfy({ $0 == 0 }) { return "an IPv4 address inside IPv6" }
            // 64:ff9b::/96 and 64:ff9b:1::/48 (NAT64) both start 0064:ff9b.
            if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B { return "an IPv4 address inside IPv6 (NAT64)" }
            if b[0] == 0x20 && b[1] == 0x02 { return "an IPv4 address inside IPv6 (6to4, 2002::/16)" }
            if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x00 && b[3] == 0x00 { return "an IPv4 address inside IPv6 (Teredo, 2001::/32)" }
            if b[0] == 0xFE && (b[1] & 0xC0) == 0x80 { return "link-local" }
            if (b[0] & 0xFE) == 0xFC { return "a unique-local (private) IPv6 address" }
            if b[0] == 0xFF { return "multicast" }
            return nil
        }
        let (a, b) = (bytes[0], bytes[1])
        switch a {
        case 0: return "the unspecified network (0.0.0.0/8)"
        case 10: return "a private network (10.0.0.0/8)"
        case 127: return "loopback"
        case 100 where (64...127).contains(b): return "carrier-grade NAT (100.64.0.0/10)"
        case 169 where b == 254: return "link-local (169.254.0.0/16), such as cloud metadata"
        case 172 where (16...31).contains(b): return "a private network (172.16.0.0/12)"
        case 192 where b == 168: return "a private network (192.168.0.0/16)"
        case 224...239: return "multicast"
        case 240...255: return "a reserved or broadcast address"
        default: return nil
        }
    }
}
