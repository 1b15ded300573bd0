import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes

/// `serve`'s settings: connections, downloads, caching fields and the server's own answers. Each reads its flag,
/// else its variable, into the configuration.
extension ServeSettings {
    static let network: [ServeSetting] = [
        ServeSetting("download-timeout", "Seconds a download may take.", "DARKROOM_DOWNLOAD_TIMEOUT", range: 1...Int.max, imgproxy: ["DOWNLOAD_TIMEOUT"]) { i, c in
            if let seconds = try i.number(i.downloadTimeout, "download-timeout") { c.downloadTimeout = .seconds(seconds) }
        },
        ServeSetting("cache-max-age", "max-age of images' Cache-Control, in seconds.", "DARKROOM_CACHE_MAX_AGE", range: 0...Int.max, imgproxy: ["TTL"]) { i, c in
            if let age = try i.number(i.cacheMaxAge, "cache-max-age") { c.cacheMaxAge = age }
        },
        ServeSetting("client-hints", "Read the DPR and Width client hints (and Sec-CH-DPR, Sec-CH-Width) as a URL's dpr and width where it sets none, and name them in Vary (imgproxy's IMGPROXY_ENABLE_CLIENT_HINTS).", "DARKROOM_CLIENT_HINTS", imgproxy: ["ENABLE_CLIENT_HINTS"]) { i, c in
            c.clientHints = try i.flag(i.clientHints, "CLIENT_HINTS")
        },
        ServeSetting("cookie-passthrough", "Send a client's cookies on to sources on the host it asked (or --cookie-base-url's), under that URL's directory, as a browser would (imgproxy's IMGPROXY_COOKIE_PASSTHROUGH); answers are cached apart for each set of cookies.", "DARKROOM_COOKIE_PASSTHROUGH", imgproxy: ["COOKIE_PASSTHROUGH"]) { i, c in
            if try i.flag(i.cookiePassthrough, "COOKIE_PASSTHROUGH") {
                var passthrough = CookiePassthrough()
                passthrough.all = try i.flag(i.cookiePassthroughAll, "COOKIE_PASSTHROUGH_ALL")
                if let text = i.cookieBaseUrl ?? i.env("COOKIE_BASE_URL") {
                    guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                        throw ValidationError("--cookie-base-url \(text): expected an http or https URL")
                    }
                    passthrough.baseURL = url
                }
                c.cookiePassthrough = passthrough
            } else if i.cookiePassthroughAll || i.cookieBaseUrl != nil {
                throw ValidationError("--cookie-passthrough-all and --cookie-base-url need --cookie-passthrough")
            }
        },
        ServeSetting("request-headers-passthrough", "Header fields of a client's request sent on to its sources, comma-separated (imgproxy Pro's IMGPROXY_REQUEST_HEADERS_PASSTHROUGH); answers are cached apart for each set of them.", "DARKROOM_REQUEST_HEADERS_PASSTHROUGH", value: "NAMES", imgproxy: ["REQUEST_HEADERS_PASSTHROUGH"]) { i, c in
            if let text = i.requestHeadersPassthrough ?? i.env("REQUEST_HEADERS_PASSTHROUGH") {
                for name in text.commaList(lowercased: true) {
                    guard HTTPField.Name(name) != nil, !ServerConfiguration.unpassableHeaders.contains(name) else {
                        throw ValidationError("--request-headers-passthrough: '\(name)' is not a header that can be passed on (the connection's own, a validator, or Cookie, which --cookie-passthrough sends)")
                    }
                    c.requestHeadersPassthrough.append(name)
                }
            }
        },
        ServeSetting("cookie-passthrough-all", "With --cookie-passthrough, send every cookie to every source (imgproxy's IMGPROXY_COOKIE_PASSTHROUGH_ALL).", "DARKROOM_COOKIE_PASSTHROUGH_ALL", imgproxy: ["COOKIE_PASSTHROUGH_ALL"]),
        ServeSetting("cookie-base-url", "The URL a client's cookies belong to, for --cookie-passthrough (default: the address the client asked, from X-Forwarded-Proto, X-Forwarded-Host or Host, and X-Forwarded-Port; imgproxy's IMGPROXY_COOKIE_BASE_URL).", "DARKROOM_COOKIE_BASE_URL", value: "URL", imgproxy: ["COOKIE_BASE_URL"]),
        ServeSetting("cache-control-passthrough", "Send the origin's Cache-Control (else its Expires, as a max-age) in place of --cache-max-age where it sent one (imgproxy's IMGPROXY_CACHE_CONTROL_PASSTHROUGH).", "DARKROOM_CACHE_CONTROL_PASSTHROUGH", imgproxy: ["CACHE_CONTROL_PASSTHROUGH"]) { i, c in
            c.cacheControlPassthrough = try i.flag(i.cacheControlPassthrough, "CACHE_CONTROL_PASSTHROUGH")
        },
        ServeSetting("max-waiting", "Refuse new work (429) while more processing runs than this wait.", "DARKROOM_MAX_WAITING", range: 0...Int.max) { i, c in
            if let waiting = try i.number(i.maxWaiting, "max-waiting") { c.maxWaitingFiltrations = waiting }
        },
        ServeSetting("keep-alive-timeout", "Seconds a connection may wait idle between requests, 1...3600 (default 10, as imgproxy's IMGPROXY_KEEP_ALIVE_TIMEOUT).", "DARKROOM_KEEP_ALIVE_TIMEOUT", range: 1...3600, imgproxy: ["KEEP_ALIVE_TIMEOUT"]) { i, c in
            if let seconds = try i.number(i.keepAliveTimeout, "keep-alive-timeout") { c.keepAliveTimeout = .seconds(seconds) }
        },
        ServeSetting("read-request-timeout", "Seconds a client may take to send a request's head and body once its first byte came, 1...3600 (default 10, as imgproxy's IMGPROXY_READ_REQUEST_TIMEOUT).", "DARKROOM_READ_REQUEST_TIMEOUT", range: 1...3600, imgproxy: ["READ_REQUEST_TIMEOUT"]) { i, c in
            if let seconds = try i.number(i.readRequestTimeout, "read-request-timeout") { c.readRequestTimeout = .seconds(seconds) }
        },
        ServeSetting("max-connections", "Connections held at once; past it a new one is answered 503 and closed (default: three quarters of the file limit, at most 10000).", "DARKROOM_MAX_CONNECTIONS", range: 1...1_000_000) { i, c in
            if let connections = try i.number(i.maxConnections, "max-connections") { c.connections.maxConnections = connections }
        },
        ServeSetting("max-connections-per-client", "Connections held at once from one client address, 0 for no limit (default 256; 0 behind a proxy).", "DARKROOM_MAX_CONNECTIONS_PER_CLIENT", range: 0...1_000_000) { i, c in
            if let connections = try i.number(i.maxConnectionsPerClient, "max-connections-per-client") { c.connections.maxPerClient = connections }
        },
        ServeSetting("shutdown-timeout", "Seconds in-flight requests get to finish on SIGINT/SIGTERM.", "DARKROOM_SHUTDOWN_TIMEOUT", range: 0...Int.max) { i, c in
            if let seconds = try i.number(i.shutdownTimeout, "shutdown-timeout") { c.shutdownTimeout = .seconds(seconds) }
        },
        ServeSetting("book-lifetime", "Seconds a finished photobook stays downloadable.", "DARKROOM_BOOK_LIFETIME", range: 1...Int.max) { i, c in
            if let seconds = try i.number(i.bookLifetime, "book-lifetime") { c.bookLifetime = .seconds(seconds) }
        },
        ServeSetting("memory-cache-mb", "Memory cache of processed images, in MiB (default: an eighth of the cgroup's memory limit, at most 256).", "DARKROOM_MEMORY_CACHE_MB", range: 0...Int.max) { i, c in
            if let megabytes = try i.number(i.memoryCacheMb, "memory-cache-mb") {
                guard megabytes <= 1 << 20 else { throw ValidationError("--memory-cache-mb \(megabytes) is over 1048576 (1 TiB)") }
                c.memoryCacheBytes = megabytes << 20
            }
        },
        ServeSetting("workers", "Processing threads (default: one per core).", "DARKROOM_WORKERS", range: 1...256, imgproxy: ["WORKERS", "CONCURRENCY"]) { i, c in
            if let threads = try i.number(i.workers, "workers") { c.filtrationConcurrency = threads }
        },
        ServeSetting("source-min-uses", "Versions asked of a source before it is kept in the disk cache, as nginx's proxy_cache_min_uses (default 2: a source asked in one version only is never written, and the latest sources wait in memory for a second; 1 keeps every source).", "DARKROOM_SOURCE_MIN_USES", range: 1...1000) { i, c in
            if let uses = try i.number(i.sourceMinUses, "source-min-uses") { c.sourceMinUses = uses }
        },
        ServeSetting("access-log", "Log every request at info level.", "DARKROOM_ACCESS_LOG") { i, c in
            c.accessLog = i.accessLog || i.envFlag("ACCESS_LOG")
        },
        ServeSetting("log-format", "How log lines are written to standard error: text, or json (one object per line, with time, level, message, request_id and the rest).", "DARKROOM_LOG_FORMAT", value: "FORMAT") { i, c in
            _ = try i.command.logFormat(env: i.env)
        },
        ServeSetting("last-modified", "Send the source's Last-Modified with its images and answer If-Modified-Since with 304 (imgproxy's IMGPROXY_USE_LAST_MODIFIED).", "DARKROOM_USE_LAST_MODIFIED", imgproxy: ["USE_LAST_MODIFIED"]) { i, c in
            if let lastModified = i.lastModified {
                c.usesLastModified = lastModified
            } else if let text = i.env("USE_LAST_MODIFIED") {
                c.usesLastModified = try ServeCommand.boolean(text, "DARKROOM_USE_LAST_MODIFIED")
            }
        },
        ServeSetting("user-agent", "The User-Agent sources are asked with; %current_version is Darkroom's (imgproxy's IMGPROXY_USER_AGENT).", "DARKROOM_USER_AGENT", value: "TEXT", imgproxy: ["USER_AGENT"]) { i, c in
            if let text = i.userAgent ?? i.env("USER_AGENT") {
                // imgproxy's placeholder is %current_version.
                let agent = text.replacingOccurrences(of: "%current_version", with: DataLoader.Configuration.version)
                guard agent.utf8.count <= 256, agent.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                    throw ValidationError("--user-agent: up to 256 printable ASCII characters")
                }
                c.userAgent = agent
            }
        },
        ServeSetting("max-redirects", "How many redirects a source may take, 0 to 20, each hop checked again (default 5; imgproxy's IMGPROXY_MAX_REDIRECTS).", "DARKROOM_MAX_REDIRECTS", value: "N", range: 0...20, imgproxy: ["MAX_REDIRECTS"]) { i, c in
            if let redirects = try i.number(i.maxRedirects, "max-redirects") { c.maxRedirects = redirects }
        },
        ServeSetting("allow-origin", "Send Access-Control-Allow-Origin: ORIGIN with image answers, and answer the OPTIONS preflight (imgproxy's IMGPROXY_ALLOW_ORIGIN).", "DARKROOM_ALLOW_ORIGIN", value: "ORIGIN", imgproxy: ["ALLOW_ORIGIN"]) { i, c in
            if let origin = i.allowOrigin ?? i.env("ALLOW_ORIGIN") {
                // A header's value: visible ASCII, as `*` or an origin is.
                guard origin.utf8.count <= 256, origin.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw ValidationError("--allow-origin \(origin): expected * or an origin such as https://example.com")
                }
                c.allowOrigin = origin
            }
        },
        ServeSetting("server-name", "The Server field of every answer (default darkroom; imgproxy's IMGPROXY_SERVER_NAME).", "DARKROOM_SERVER_NAME", value: "NAME", imgproxy: ["SERVER_NAME"]) { i, c in
            if let name = i.serverName ?? i.env("SERVER_NAME") {
                // A header's value: visible ASCII and spaces, as a product name is.
                guard (1...256).contains(name.utf8.count), name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                    throw ValidationError("--server-name: 1 to 256 printable ASCII characters")
                }
                c.serverName = name
            }
        },
        ServeSetting("path-prefix", "Serve image URLs under this path (/images/SIGNATURE/OPTIONS/...) instead of at the root; /img/ always works (imgproxy's IMGPROXY_PATH_PREFIX).", "DARKROOM_PATH_PREFIX", value: "PATH", imgproxy: ["PATH_PREFIX"]) { i, c in
            if let text = i.pathPrefix ?? i.env("PATH_PREFIX") {
                do {
                    c.imagePaths = try ImagePaths(prefix: text)
                } catch {
                    throw ValidationError("--path-prefix: \(error)")
                }
            }
        },
        ServeSetting("metrics-bind", "Serve /metrics on this address instead of the main one, to keep it off the public port (imgproxy's IMGPROXY_PROMETHEUS_BIND).", "DARKROOM_METRICS_BIND", value: "HOST:PORT", imgproxy: ["PROMETHEUS_BIND"]) { i, c in
            if let text = i.metricsBind ?? i.env("METRICS_BIND") { c.metricsAddress = try ServeCommand.address(text, flag: "--metrics-bind") }
        },
    ]
}
