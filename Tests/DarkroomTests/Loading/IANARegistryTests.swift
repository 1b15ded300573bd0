import Darkroom
import Testing

/// The address policy held to the IANA special-purpose address registries
/// (IPv4 and IPv6), written here from the registries themselves rather
/// than from the product's table: a block the product's table lacks
/// fails here. Each block not marked globally reachable, and multicast,
/// is refused at its first and its last address.
@Suite struct IANARegistryTests {
    /// The IPv4 registry's blocks that are not globally reachable, and
    /// multicast (its own registry) and the limited broadcast address.
    static let ipv4 = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.0.0/29", "192.0.0.8/32", "192.0.0.170/32", "192.0.0.171/32", "192.0.2.0/24",
        "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24", "203.0.113.0/24", "224.0.0.0/4", "240.0.0.0/4",
        "255.255.255.255/32",
    ]

    /// The IPv6 registry's blocks that are not globally reachable, and
    /// multicast.
    static let ipv6 = [
        "::1/128", "::/128", "64:ff9b:1::/48", "100::/64", "100:0:0:1::/64", "2001::/23", "2001::/32", "2001:2::/48",
        "2001:10::/28", "2001:db8::/32", "3fff::/20", "5f00::/16", "fc00::/7", "fe80::/10", "ff00::/8",
    ]

    /// The first and last address of `cidr`, as text.
    static func ends(of cidr: String) -> (first: [UInt8], last: [UInt8])? {
        let parts = cidr.split(separator: "/")
        guard parts.count == 2, let length = Int(parts[1]), let network = IPAddress(String(parts[0])) else { return nil }
        let first = network.bytes
        var last = first
        var remaining = length
        for index in last.indices {
            let kept = min(8, max(0, remaining))
            last[index] |= UInt8(truncatingIfNeeded: 0xFF >> kept)
            remaining -= 8
        }
        return (first, last)
    }

    @Test(arguments: ipv4 + ipv6)
    func everyBlockTheRegistryMarksNotGloballyReachableIsRefused(cidr: String) throws {
        let (first, last) = try #require(Self.ends(of: cidr), "\(cidr) is written as a CIDR block")
        for bytes in [first, last] {
            let address = try #require(IPAddress(bytes: bytes))
            #expect(address.privateReason != nil, "\(address) in \(cidr) is not refused")
        }
    }

    /// And the check can pass: addresses on the public internet are let through.
    @Test func publicAddressesAreNotRefused() throws {
        for text in ["8.8.8.8", "1.1.1.1", "93.184.215.14", "2606:4700:4700::1111", "2a00:1450:4001:82a::200e"] {
            let address = try #require(IPAddress(text))
            #expect(address.privateReason == nil, "\(text): \(address.privateReason ?? "")")
        }
    }
}
