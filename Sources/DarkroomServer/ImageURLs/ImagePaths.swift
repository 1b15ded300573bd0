/// Where image URLs are served: under `/img/` always, and as imgproxy
/// serves them, at the root (`/SIGNATURE/OPTIONS/.../SOURCE`) or under a
/// path prefix (`IMGPROXY_PATH_PREFIX`, `--path-prefix`).
///
/// At the root, Darkroom's own routes win: a path whose first segment is
/// one of theirs (`/`, `/health`, `/metrics`, `/info/...`, `/api/...`,
/// `/gallery/...`, `/samples/...`, `/img/...`) is never read as an image
/// URL. A signature spelled as one of those names could only come from a
/// signature cut to two bytes or less; with a prefix nothing clashes.
public struct ImagePaths: Sendable, Hashable {
    /// "" for the root, else a path such as "/images", without a trailing slash.
    public let prefix: String

    /// The first path segments that are Darkroom's own routes.
    public static let reserved: Set<Substring> = ["", "img", "info", "health", "metrics", "api", "gallery", "samples", "favicon.ico"]

    /// - Throws: ``ServerSetupError`` for a prefix that is not a path, or
    ///   that would take one of Darkroom's own routes.
    public init(prefix: String = "") throws(ServerSetupError) {
        if !prefix.isEmpty {
            guard prefix.hasPrefix("/"), !prefix.hasSuffix("/"), prefix.utf8.count <= 256,
                  prefix.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"?#%\\\"".utf8.contains($0) })
            else {
                throw ServerSetupError("the path prefix \"\(prefix)\" is not a path such as /images (a leading slash, no trailing one, up to 256 plain characters)")
            }
            let first = prefix.dropFirst().prefix { $0 != "/" }
            guard !Self.reserved.contains(first) else {
                throw ServerSetupError("the path prefix \"\(prefix)\" would take the server's own /\(first) route")
            }
        }
        self.prefix = prefix
    }

    /// Image URLs at the root and under `/img/`, as imgproxy's default.
    public static let root = ImagePaths(checked: "")

    private init(checked prefix: String) { self.prefix = prefix }

    /// The image URL in `path` (from the slash before its signature on), or
    /// nil when `path` is another route's.
    public func imageURL(in path: Substring) -> Substring? {
        if path.hasPrefix("/img/") { return path.dropFirst(4) }
        if !prefix.isEmpty {
            guard path.hasPrefix(prefix), path.dropFirst(prefix.utf8.count).hasPrefix("/") else { return nil }
            return path.dropFirst(prefix.utf8.count)
        }
        let first = path.dropFirst().prefix { $0 != "/" }
        guard path.hasPrefix("/"), !Self.reserved.contains(first) else { return nil }
        return path
    }
}
