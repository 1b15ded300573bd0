@testable import Darkroom
import Foundation
import Testing

@Suite struct SourcePolicyTests {
    @Test(arguments: [
        "127.0.0.1", "127.1.2.3", "::1", "10.0.0.1", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "100.64.0.1", "100.127.255.255", "::ffff:127.0.0.1", "::ffff:0:127.0.0.1", "0.0.0.0", "::",
        "fc00::1", "fd12:3456::1", "fe80::1", "224.0.0.1", "ff02::1", "64:ff9b::7f00:1", "255.255.255.255",
        "64:ff9b:1::a00:1", "2002:7f00:1::1", "2002:a9fe:a9fe::", "2001:0:4136:e378:8000:63bf:80ff:fffe", "2001::1",
        "192.0.0.170", "198.18.0.1", "198.19.255.255", "192.0.2.1", "198.51.100.7", "203.0.113.9", "fec0::1", "100::1", "2001:db8::1",
    ])
    func privateAddressesHaveAReason(text: String) throws {
        let address = try #require(IPAddress(text))
        #expect(address.privateReason != nil, "\(text)")
    }

    @Test(arguments: ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "93.184.216.34",
                      // A public IPv4 address in any IPv6 spelling is that address.
                      "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "::ffff:0:93.184.216.34"])
    func publicAddressesAreFine(text: String) throws {
        #expect(try #require(IPAddress(text)).privateReason == nil, "\(text)")
    }

    @Test(arguments: [
        "http://127.0.0.1/a.jpg", "http://[::1]:8080/a.jpg", "http://10.1.2.3/a.jpg", "http://172.16.5.4/a.jpg",
        "http://192.168.0.10/a.jpg", "http://169.254.169.254/latest/meta-data/", "http://100.64.1.1/a.jpg",
        "http://[::ffff:127.0.0.1]/a.jpg", "https://localhost/a.jpg",
        "http://[2002:7f00:1::1]/a.jpg", "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/a.jpg", "http://[64:ff9b:1::a00:1]/a.jpg",
    ])
    func privateSourcesAreRefusedBeforeAnyConnection(text: String) async throws {
        let policy = SourcePolicy()
        do {
            _ = try await policy.checkedAddress(for: URL(string: text)!)
            Issue.record("\(text) was allowed")
        } catch {
            #expect(error.kind == .forbiddenSource, "\(text): \(error)")
            // For a name, the answer says the kind of network, never the
            // address it resolved to.
            if text.contains("localhost") {
                #expect(!error.description.contains("127.0.0.1") && !error.description.contains("::1"), "\(error)")
            }
        }
    }

    @Test func trustedOriginsSkipTheCheckAndPrivateNetworksArePinned() async throws {
        let trusted = SourcePolicy(trustedOrigins: ["http://127.0.0.1:8080/samples/"])
        #expect(try await trusted.checkedAddress(for: URL(string: "http://127.0.0.1:8080/samples/a.jpg")!) == nil)
        await #expect(throws: DarkroomError.self) { try await trusted.checkedAddress(for: URL(string: "http://127.0.0.1:8080/other/a.jpg")!) }
        // Private networks allowed: not refused, but still pinned to the
        // address resolved.
        let open = SourcePolicy(allowPrivateNetworks: true)
        #expect(try await open.checkedAddress(for: URL(string: "http://10.0.0.1/a.jpg")!) == IPAddress("10.0.0.1"))
    }

    @Test func publicLiteralsAreAllowedAndPinned() async throws {
        let address = try await SourcePolicy().checkedAddress(for: URL(string: "http://93.184.216.34/a.jpg")!)
        #expect(address?.description == "93.184.216.34")
    }

    @Test func theAllowListAndSchemes() throws {
        let policy = SourcePolicy(allowedPrefixes: ["https://images.example.com/"])
        try policy.checkSource(URL(string: "https://images.example.com/a.jpg")!)
        #expect(throws: DarkroomError.self) { try policy.checkSource(URL(string: "https://evil.example.com/a.jpg")!) }
        #expect(throws: DarkroomError.self) { try SourcePolicy().checkSource(URL(string: "ftp://x.org/a.jpg")!) }
        #expect(throws: DarkroomError.self) { try SourcePolicy().checkSource(URL(string: "file:///etc/passwd")!) }
    }

    @Test func theAllowListComparesSchemeHostPortAndWholePathSegments() throws {
        let cases: [(prefix: String, url: String, allowed: Bool)] = [
            ("http://photos.example", "http://photos.example/a.jpg", true),
            ("http://photos.example", "http://photos.example@evil.example/a.jpg", false),
            ("http://photos.example", "http://photos.example.evil.example/a.jpg", false),
            ("http://photos.example", "http://photos.example:8080/a.jpg", false),
            ("http://photos.example", "http://photos.example:80/a.jpg", true),
            ("http://photos.example", "https://photos.example/a.jpg", false),
            ("http://photos.example/", "http://user:pw@photos.example/a.jpg", false),
            ("http://photos.example/public", "http://photos.example/public/a.jpg", true),
            ("http://photos.example/public", "http://photos.example/public", true),
            ("http://photos.example/public", "http://photos.example/public-private/a.jpg", false),
            ("http://photos.example/public/", "http://photos.example/public/a.jpg", true),
            ("https://PHOTOS.example/", "https://photos.EXAMPLE/a.jpg", true),
        ]
        for (prefix, text, allowed) in cases {
            let policy = SourcePolicy(allowedPrefixes: [prefix])
            let url = try #require(URL(string: text))
            do {
                try policy.checkSource(url)
                #expect(allowed, "\(text) under \(prefix) was allowed")
            } catch {
                #expect(!allowed, "\(text) under \(prefix) was refused: \(error)")
                #expect(error.kind == .forbiddenSource || error.kind == .invalidURL)
            }
        }
    }

    /// imgproxy's patterns: its integration test's cases (`http://*.mycdn.dev/`),
    /// its unit test's (`*` within a segment), and the URLs a pattern must
    /// not be fooled by.
    @Test func patternsWithWildcardsAsImgproxyReadsThem() throws {
        let cases: [(pattern: String, url: String, allowed: Bool)] = [
            ("http://*.mycdn.dev/", "http://a-1.mycdn.dev/images/a.jpg", true),
            ("http://*.mycdn.dev/", "http://a-1.b-2.mycdn.dev/images/a.jpg", true),
            ("http://*.mycdn.dev/", "http://other.dev/.mycdn.dev/a.jpg", false),
            ("http://*.mycdn.dev/", "https://a.mycdn.dev/a.jpg", false),
            ("http://photos.example/*.jpg", "http://photos.example/image.jpg", true),
            ("http://photos.example/*.jpg", "http://photos.example/dir/image.jpg", false),
            ("http://photos.example/*-*-*.jpg", "http://photos.example/img-01-thumb.jpg", true),
            ("http://photos.example/*-*-*.jpg", "http://photos.example/img-01.jpg", false),
            ("http://photos.example/prefix*", "http://photos.example/prefix123", true),
            ("http://photos.example/prefix*", "http://photos.example/notprefix", false),
            ("HTTP://*.MYCDN.dev/", "http://a.mycdn.DEV/x.jpg", true),
            // Not fooled: a query, a user name or a port in the wildcard's place.
            ("http://*.mycdn.dev/", "http://evil.example?.mycdn.dev/a.jpg", false),
            ("http://*.mycdn.dev/", "http://evil.example#.mycdn.dev/a.jpg", false),
            ("http://*.mycdn.dev/", "http://evil.example@a.mycdn.dev/a.jpg", false),
            ("http://*.mycdn.dev/", "http://user:pw@a.mycdn.dev/a.jpg", false),
            ("http://*.mycdn.dev/", "http://a.mycdn.dev.evil.example/a.jpg", false),
            // A pattern that ends in the host matches the whole host.
            ("https://*.cdn.example", "https://x.cdn.example.evil.net/a.jpg", false),
            ("https://*.cdn.example", "https://x.cdn.example/a.jpg", true),
            ("https://*.cdn.example", "https://x.cdn.example:8443/a.jpg", true),
        ]
        for (pattern, text, allowed) in cases {
            let policy = SourcePolicy(allowedPrefixes: ["https://fixed.example/", pattern])
            guard let url = URL(string: text) else {
                #expect(!allowed, "\(text) does not parse")
                continue
            }
            do {
                try policy.checkSource(url)
                #expect(allowed, "\(text) by \(pattern) was allowed")
            } catch {
                #expect(!allowed, "\(text) by \(pattern) was refused: \(error)")
            }
        }
    }

    /// A client's cookies go with a redirect to the source's host or its
    /// subdomains only, as Go's client (imgproxy's) sends them.
    @Test func cookiesFollowRedirectsWithinTheSourcesDomainOnly() {
        let source = URL(string: "https://images.example/a.jpg")!
        for (next, within) in [("https://images.example/b.jpg", true), ("http://cdn.images.example/b.jpg", true),
                               ("https://evilimages.example/b.jpg", false), ("https://example/b.jpg", false),
                               ("https://images.example.evil.example/b.jpg", false)] {
            #expect(DataLoader.isWithin(URL(string: next)!, domainOf: source) == within, "\(next)")
        }
    }
}
