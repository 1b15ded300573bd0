public import Foundation
import NIOPosix

/// Which sources a server may fetch: only http and https; only under the
/// allowed prefixes, when there are any; and never from loopback, private,
/// link-local, multicast or unspecified addresses, or IPv4 inside IPv6,
/// unless private networks are allowed or the source is a trusted origin.
///
/// The address check is made on every address the host resolves to, at
/// every hop of a redirect, before any connection is made; and plain-HTTP
/// requests then connect to the very address that was checked.
public struct SourcePolicy: Sendable, Hashable {
    /// URL prefixes a requested source must start with; empty: any. A
    /// prefix with `*` is a pattern, as imgproxy's `IMGPROXY_ALLOWED_SOURCES`
    /// (see ``url(_:matches:)``).
    public var allowedPrefixes: [String]
    /// Skip the address check (for servers inside a private network).
    public var allowPrivateNetworks: Bool
    /// URL prefixes exempt from the address check, such as the server's own
    /// bundled sample origin.
    public var trustedOrigins: [String]
    /// Host names answered here rather than by DNS (for tests, and for
    /// names a deployment pins itself).
    package var resolvedHosts: [String: IPAddress] = [:]

    public init(allowedPrefixes: [String] = [], allowPrivateNetworks: Bool = false, trustedOrigins: [String] = []) {
        self.allowedPrefixes = allowedPrefixes
        self.allowPrivateNetworks = allowPrivateNetworks
        self.trustedOrigins = trustedOrigins
    }

    /// Checks the requested source against the scheme and the allow-list.
    public func checkSource(_ url: URL) throws(DarkroomError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty else {
            throw DarkroomError(.forbiddenSource, "\(url.absoluteString) is not an http or https URL")
        }
        if !allowedPrefixes.isEmpty, !allowedPrefixes.contains(where: { Self.url(url, isUnder: $0) }) {
            throw DarkroomError(.forbiddenSource, "\(url.absoluteString) is not under an allowed source prefix")
        }
    }

    /// Whether `url` lies under `prefix`, compared as parsed URLs: the same
    /// scheme, host and port (`http://host` does not admit
    /// `http://host@other/`), no user name or password, and a path that is
    /// the prefix's path or continues it after a `/` (`/photos` admits
    /// `/photos/a.jpg`, not `/photos-private/a.jpg`).
    static func url(_ url: URL, isUnder prefix: String) -> Bool {
        if prefix.contains("*") { return Self.url(url, matches: prefix) }
        guard let allowed = URLComponents(string: prefix), let asked = URLComponents(url: url, resolvingAgainstBaseURL: false),
              let scheme = asked.scheme?.lowercased(), scheme == allowed.scheme?.lowercased(),
              let host = asked.host?.lowercased(), !host.isEmpty, host == allowed.host?.lowercased(),
              asked.user == nil, asked.password == nil
        else { return false }
        let defaultPort = scheme == "https" ? 443 : 80
        guard (asked.port ?? defaultPort) == (allowed.port ?? defaultPort) else { return false }
        let base = allowed.percentEncodedPath
        if base.isEmpty || base == "/" { return true }
        let path = asked.percentEncodedPath
        return path == base || path.hasPrefix(base.hasSuffix("/") ? base : base + "/")
    }

    /// Whether `url` starts with what `pattern` matches, where each `*`
    /// stands for any run of characters within one part of the URL, as
    /// imgproxy reads its allowed sources (`https://*.cdn.example/` admits
    /// `https://a.b.cdn.example/x.jpg`). Unlike imgproxy's, a `*` never
    /// spans `/`, `?`, `#`, `@`, `:` or `\`: `https://evil.example?.cdn.example/`
    /// and `https://evil.example@x.cdn.example/` are not admitted. A URL with
    /// a user name or password never is.
    static func url(_ url: URL, matches pattern: String) -> Bool {
        guard let asked = URLComponents(url: url, resolvingAgainstBaseURL: false), asked.user == nil, asked.password == nil,
              let host = asked.host, !host.isEmpty
        else { return false }
        var expression = "^" + pattern.components(separatedBy: "*").map(NSRegularExpression.escapedPattern(for:))
            .joined(separator: #"[^/?#@:\\]*"#)
        // A pattern that ends within the host (`https://*.cdn.example`)
        // matches the whole host, not a longer one that starts with it.
        if let authority = pattern.range(of: "://").map({ pattern[$0.upperBound...] }), !authority.contains("/") {
            expression += "(?=[:/?#]|$)"
        }
        guard let regex = try? NSRegularExpression(pattern: expression, options: [.caseInsensitive]) else { return false }
        let text = url.absoluteString
        return regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }

    /// Where to connect for `url`: the host resolved once and, unless
    /// private networks are allowed, every address checked. The fetch
    /// connects to the address returned, so a name cannot resolve to
    /// another address between the check and the connection (DNS
    /// rebinding). nil: connect by name (trusted origins).
    func checkedAddress(for url: URL) async throws(DarkroomError) -> IPAddress? {
        guard let host = url.host, !host.isEmpty else {
            throw DarkroomError(.invalidURL, "\(url.absoluteString) has no host")
        }
        if trustedOrigins.contains(where: { Self.url(url, isUnder: $0) }) {
            return nil
        }
        let addresses: [IPAddress]
        if let pinned = resolvedHosts[host.lowercased()] {
            addresses = [pinned]
        } else {
            addresses = try await Self.resolve(host)
        }
        // IPv4 first, where there is one: the one address tried must be
        // reachable from machines without IPv6 routes.
        guard let first = addresses.first(where: { !$0.isIPv6 }) ?? addresses.first else {
            throw DarkroomError(.networkFailure, "\(host) has no address")
        }
        if allowPrivateNetworks { return first }
        for address in addresses {
            if let reason = address.privateReason {
                // The address itself is not said: an answer must not map the server's network.
                throw DarkroomError(.forbiddenSource, "\(url.absoluteString) resolves to \(reason); private addresses are not fetched")
            }
        }
        return first
    }

    /// Threads for name lookups alone: on NIO's shared pool a lookup would
    /// wait behind whatever libvips work is there (an `/info` request's),
    /// and a download behind the lookup. Eight, so that a few names whose
    /// servers never answer (each lookup waits out the resolver's timeout)
    /// do not hold every other lookup.
    private static let resolver: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 8)
        pool.start()
        return pool
    }()

    /// Resolves a host name (or reads an address literal), on a thread that
    /// may block.
    static func resolve(_ host: String) async throws(DarkroomError) -> [IPAddress] {
        if let literal = IPAddress(host) { return [literal] }
        do {
            return try await resolver.runIfActive {
                var hints = addrinfo()
                hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
                var results: UnsafeMutablePointer<addrinfo>?
                guard getaddrinfo(host, nil, &hints, &results) == 0, let first = results else {
                    throw DarkroomError(.networkFailure, "\(host) could not be resolved")
                }
                defer { freeaddrinfo(results) }
                var addresses: [IPAddress] = []
                var cursor: UnsafeMutablePointer<addrinfo>? = first
                while let entry = cursor {
                    if let sockaddr = entry.pointee.ai_addr {
                        if entry.pointee.ai_family == AF_INET {
                            let v4 = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                            addresses.append(IPAddress(bytes: withUnsafeBytes(of: v4) { Array($0) })!)
                        } else if entry.pointee.ai_family == AF_INET6 {
                            let v6 = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                            addresses.append(IPAddress(bytes: withUnsafeBytes(of: v6) { Array($0) })!)
                        }
                    }
                    cursor = entry.pointee.ai_next
                }
                return Array(Set(addresses)).sorted { $0.description < $1.description }
            }
        } catch let error as DarkroomError {
            throw error
        } catch {
            throw DarkroomError(.networkFailure, "\(host) could not be resolved", underlying: "\(error)")
        }
    }
}
