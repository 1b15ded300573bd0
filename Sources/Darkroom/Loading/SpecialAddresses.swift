/// The address blocks a server must never fetch from: IANA's IPv4 and IPv6
/// special-purpose address registries (every entry, reachable or not: no
/// image lives on an anycast relay or a documentation range), multicast,
/// and IPv6 outside global unicast. An IPv6 address that carries an IPv4
/// one (mapped, compatible, translated, NAT64's well-known prefix, 6to4) is
/// judged by the IPv4 address it carries, so that no spelling reaches what
/// the plain one cannot.
enum SpecialAddresses {
    struct Block: Sendable {
        let network: [UInt8]
        let length: Int
        let reason: String

        init(_ text: String, _ length: Int, _ reason: String) {
            network = IPAddress(text)!.bytes
            self.length = length
            self.reason = reason
        }

        func contains(_ bytes: [UInt8]) -> Bool {
            guard bytes.count == network.count else { return false }
            var bits = length
            for (index, byte) in bytes.enumerated() where bits > 0 {
                let mask: UInt8 = bits >= 8 ? 0xFF : ~(0xFF >> UInt8(bits))
                if byte & mask != network[index] & mask { return false }
                bits -= 8
            }
            return true
        }
    }

    static let ipv4: [Block] = [
        Block("0.0.0.0", 8, "the unspecified network (0.0.0.0/8)"),
        Block("10.0.0.0", 8, "a private network (10.0.0.0/8)"),
        Block("100.64.0.0", 10, "carrier-grade NAT (100.64.0.0/10)"),
        Block("127.0.0.0", 8, "loopback"),
        Block("169.254.0.0", 16, "link-local (169.254.0.0/16), such as cloud metadata"),
        Block("172.16.0.0", 12, "a private network (172.16.0.0/12)"),
        Block("192.0.0.0", 24, "IETF protocol assignments (192.0.0.0/24)"),
        Block("192.0.2.0", 24, "documentation (TEST-NET-1, 192.0.2.0/24)"),
        Block("192.31.196.0", 24, "AS112 (192.31.196.0/24)"),
        Block("192.52.193.0", 24, "automatic multicast tunnelling (192.52.193.0/24)"),
        Block("192.88.99.0", 24, "6to4 relay anycast (192.88.99.0/24)"),
        Block("192.168.0.0", 16, "a private network (192.168.0.0/16)"),
        Block("192.175.48.0", 24, "AS112 direct delegation (192.175.48.0/24)"),
        Block("198.18.0.0", 15, "benchmarking (198.18.0.0/15)"),
        Block("198.51.100.0", 24, "documentation (TEST-NET-2, 198.51.100.0/24)"),
        Block("203.0.113.0", 24, "documentation (TEST-NET-3, 203.0.113.0/24)"),
        Block("224.0.0.0", 4, "multicast"),
        Block("240.0.0.0", 4, "a reserved or broadcast address"),
    ]

    /// Checked after the forms that carry an IPv4 address.
    static let ipv6: [Block] = [
        Block("::", 128, "the unspecified address"),
        Block("::1", 128, "loopback"),
        Block("64:ff9b:1::", 48, "local-use NAT64 (64:ff9b:1::/48)"),
        Block("100::", 64, "discard-only (100::/64)"),
        Block("100:0:0:1::", 64, "the dummy prefix (100:0:0:1::/64)"),
        Block("2001::", 23, "IETF protocol assignments (2001::/23, Teredo among them)"),
        Block("2001:db8::", 32, "documentation (2001:db8::/32)"),
        Block("3fff::", 20, "documentation (3fff::/20)"),
        Block("5f00::", 16, "segment routing (5f00::/16)"),
        Block("fc00::", 7, "a unique-local (private) IPv6 address"),
        Block("fe80::", 10, "link-local"),
        Block("fec0::", 10, "site-local (fec0::/10)"),
        Block("ff00::", 8, "multicast"),
    ]

    /// The IPv4 address an IPv6 one carries, with the form's name: mapped
    /// (::ffff:0:0/96), translated (::ffff:0:0:0/96), compatible (::/96),
    /// NAT64's well-known prefix (64:ff9b::/96), 6to4 (2002::/16).
    static func carriedIPv4(_ b: [UInt8]) -> (bytes: [UInt8], form: String)? {
        guard b.count == 16 else { return nil }
        let zeros = { (range: Range<Int>) in b[range].allSatisfy { $0 == 0 } }
        if zeros(0..<10) && b[10] == 0xFF && b[11] == 0xFF { return (Array(b[12..<16]), "IPv4-mapped") }
        if zeros(0..<8) && b[8] == 0xFF && b[9] == 0xFF && zeros(10..<12) { return (Array(b[12..<16]), "IPv4-translated") }
        // ::1 and :: are IPv6's own, not IPv4-compatible addresses.
        if zeros(0..<12) && !zeros(12..<15) { return (Array(b[12..<16]), "IPv4-compatible") }
        if b[0..<4] == [0x00, 0x64, 0xFF, 0x9B] && zeros(4..<12) { return (Array(b[12..<16]), "NAT64") }
        if b[0] == 0x20 && b[1] == 0x02 { return (Array(b[2..<6]), "6to4") }
        return nil
    }

    /// Why a server should not fetch from `bytes` (4 or 16), or nil.
    static func reason(_ bytes: [UInt8]) -> String? {
        if bytes.count == 4 { return ipv4.first { $0.contains(bytes) }?.reason }
        if let (carried, form) = carriedIPv4(bytes) {
            return reason(carried).map { "\($0), inside an \(form) IPv6 address" }
        }
        if let block = ipv6.first(where: { $0.contains(bytes) }) { return block.reason }
        // Only 2000::/3 is global unicast; the rest is reserved.
        if bytes[0] & 0xE0 != 0x20 { return "a reserved IPv6 address (outside 2000::/3)" }
        return nil
    }
}
