public import Foundation

/// Which of a client's cookies go to a source, as imgproxy passes them
/// (`IMGPROXY_COOKIE_PASSTHROUGH`, `_PASSTHROUGH_ALL`, `IMGPROXY_COOKIE_BASE_URL`):
/// the client's cookies belong to the base URL (the configured one, else
/// the address the client asked, from `X-Forwarded-Proto`, `X-Forwarded-Host`
/// or `Host`, and `X-Forwarded-Port`), and go to a source on that very host
/// (any port) under the base URL's directory, as a browser sends a
/// host-only cookie; with `all`, to every source.
public struct CookiePassthrough: Sendable, Hashable {
    /// Every cookie to every source (imgproxy's `_PASSTHROUGH_ALL`).
    public var all = false
    /// The URL the client's cookies are taken to belong to.
    public var baseURL: URL?

    public init(all: Bool = false, baseURL: URL? = nil) {
        self.all = all
        self.baseURL = baseURL
    }

    /// The `Cookie` value to send for `source`, or nil for none.
    /// - Parameter field: the request's header fields, by lower-case name.
    public func cookies(for source: URL, field: (String) -> String?) -> String? {
        guard let cookie = field("cookie")?.trimmingCharacters(in: .whitespaces), !cookie.isEmpty,
              // A header value that would split a request is never sent on.
              !cookie.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }),
              let scheme = source.scheme?.lowercased(), scheme == "http" || scheme == "https"
        else { return nil }
        if all { return cookie }
        guard let base = baseURL ?? Self.requestedURL(field: field), let baseHost = base.host?.lowercased(),
              source.host?.lowercased() == baseHost
        else { return nil }
        return source.path.hasPrefix(Self.defaultPath(of: base)) || source.path + "/" == Self.defaultPath(of: base) ? cookie : nil
    }

    /// The address the client asked for, as imgproxy reconstructs it.
    static func requestedURL(field: (String) -> String?) -> URL? {
        let scheme = field("x-forwarded-proto").flatMap { ["http", "https"].contains($0.lowercased()) ? $0.lowercased() : nil } ?? "http"
        guard let host = field("x-forwarded-host") ?? field("host"), !host.isEmpty else { return nil }
        let port = field("x-forwarded-port").flatMap { Int($0) }.map { ":\($0)" } ?? ""
        return URL(string: "\(scheme)://\(host)\(port)/")
    }

    /// A cookie's default path (RFC 6265 5.1.4): the URL's path up to its
    /// last `/`, or `/`.
    static func defaultPath(of url: URL) -> String {
        let path = url.path
        guard path.hasPrefix("/"), let last = path.lastIndex(of: "/"), last != path.startIndex else { return "/" }
        return String(path[..<last]) + "/"
    }
}
