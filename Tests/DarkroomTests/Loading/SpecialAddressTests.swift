@testable import Darkroom
import Testing

/// Every block of IANA's special-purpose address registries, as a table:
/// its first and last address are refused, and an IPv4 block in each IPv6
/// spelling that carries an IPv4 address too (mapped, translated,
/// compatible, NAT64, 6to4), by the same rule. Nothing here connects.
@Suite struct SpecialAddressTests {
    static func last(of block: SpecialAddresses.Block) -> [UInt8] {
        var bytes = block.network
        var bits = block.length
        for index in bytes.indices {
            let kept = min(8, max(0, bits))
            bytes[index] |= UInt8(truncatingIfNeeded: 0xFF >> kept)
            bits -= 8
        }
        return bytes
    }

    /// The IPv6 spellings that carry `v4`.
    static func spellings(of v4: [UInt8]) -> [(String, [UInt8])] {
        let zeros = [UInt8](repeating: 0, count: 10)
        return [
            ("mapped", zeros + [0xFF, 0xFF] + v4),
            ("translated", [UInt8](repeating: 0, count: 8) + [0xFF, 0xFF, 0, 0] + v4),
            ("NAT64", [0x00, 0x64, 0xFF, 0x9B] + [UInt8](repeating: 0, count: 8) + v4),
            ("6to4", [0x20, 0x02] + v4 + [UInt8](repeating: 0, count: 9) + [1]),
        ] + (v4[0..<3] == [0, 0, 0] ? [] : [("compatible", [UInt8](repeating: 0, count: 12) + v4)])
    }

    @Test(arguments: SpecialAddresses.ipv4.indices)
    func everyIPv4BlockIsRefusedInEverySpelling(index: Int) throws {
        let block = SpecialAddresses.ipv4[index]
        for address in [block.network, Self.last(of: block)] {
            let plain = try #require(IPAddress(bytes: address))
            #expect(plain.privateReason == block.reason, "\(plain)")
            for (form, bytes) in Self.spellings(of: address) {
                let spelled = try #require(IPAddress(bytes: bytes))
                #expect(spelled.privateReason?.hasPrefix(block.reason) == true, "\(plain) as \(form) \(spelled): \(spelled.privateReason ?? "allowed")")
                // Parsed back from its text form, it is the same address.
                #expect(IPAddress(spelled.description)?.privateReason != nil, "\(spelled)")
            }
        }
    }

    @Test(arguments: SpecialAddresses.ipv6.indices)
    func everyIPv6BlockIsRefused(index: Int) throws {
        let block = SpecialAddresses.ipv6[index]
        for address in [block.network, Self.last(of: block)] {
            let spelled = try #require(IPAddress(bytes: address))
            #expect(spelled.privateReason != nil, "\(spelled)")
        }
    }

    @Test(arguments: ["4000::1", "::2", "1::1", "e000::1"])
    func ipv6OutsideGlobalUnicastIsRefused(text: String) throws {
        #expect(try #require(IPAddress(text)).privateReason != nil, "\(text)")
    }

    /// Just outside a block is the public internet.
    @Test(arguments: ["192.0.1.255", "192.0.3.0", "198.17.255.255", "198.20.0.0", "203.0.114.0", "2001:200::1", "2001:db9::1", "3fff:1000::1"])
    func neighboursOfABlockAreFetched(text: String) throws {
        #expect(try #require(IPAddress(text)).privateReason == nil, "\(text)")
    }
}
