import Foundation
import DarkroomServer

/// An imgproxy deployment's `IMGPROXY_*` variables, read as the Darkroom
/// settings that mean the same thing, so that its environment file works
/// unchanged. A `DARKROOM_*` variable (or a flag) wins where both are set.
/// A variable Darkroom does not honour is named in one warning at start,
/// never silently ignored.
struct ImgproxyEnvironment {
    /// The `DARKROOM_*` names (without the prefix) and their values that
    /// imgproxy's variables stand for.
    var settings: [String: String] = [:]
    /// `IMGPROXY_*` variables set but not honoured, sorted, with why.
    var unhonoured: [String] = []

    /// Variables whose value Darkroom already has, honoured when set to it.
    static let alwaysOn: [String: Bool] = [
        "USE_ETAG": true, "STRIP_METADATA": true, "KEEP_COPYRIGHT": true, "STRIP_COLOR_PROFILE": true,
        "AUTO_ROTATE": true,
    ]

    /// Whether loopback sources are allowed, which Darkroom's one switch
    /// for private addresses needs (whatever order the variables come in).
    private let allowsLoopback: Bool
    /// What divides Pro's custom header fields (`\;` unless set).
    private let headerSeparator: String

    static func isTrue(_ value: String?) -> Bool { ["1", "true", "yes"].contains(value?.lowercased() ?? "") }

    init(_ environment: [String: String]) {
        allowsLoopback = Self.isTrue(environment["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"])
        headerSeparator = environment["IMGPROXY_CUSTOM_HEADERS_SEPARATOR"].flatMap { $0.isEmpty ? nil : $0 } ?? "\\;"
        for (name, value) in environment.sorted(by: { $0.key < $1.key }) where name.hasPrefix("IMGPROXY_") && !value.isEmpty {
            let key = String(name.dropFirst("IMGPROXY_".count))
            if let reason = take(key, value) {
                unhonoured.append("\(name) (\(reason))")
            }
        }
    }

    /// Reads one variable; the reason it is not honoured, or nil.
    private mutating func take(_ key: String, _ value: String) -> String? {
        switch key {
        case "KEY", "SALT", "SIGNATURE_SIZE", "WORKERS", "QUALITY", "FORMAT_QUALITY", "MAX_ANIMATION_FRAMES", "DOWNLOAD_TIMEOUT",
             "ONLY_PRESETS", "ALLOW_SECURITY_OPTIONS", "BASE_URL", "URL_REPLACEMENTS", "BASE64_URL_INCLUDES_FILENAME",
             "JPEG_PROGRESSIVE", "ALLOWED_PROCESSING_OPTIONS", "KEEP_ALIVE_TIMEOUT", "READ_REQUEST_TIMEOUT", "PATH_PREFIX",
             "USE_LAST_MODIFIED", "ALLOW_ORIGIN", "USER_AGENT", "MAX_REDIRECTS", "CACHE_CONTROL_PASSTHROUGH", "COOKIE_PASSTHROUGH",
             "COOKIE_PASSTHROUGH_ALL", "COOKIE_BASE_URL", "PRESERVE_HDR", "REQUEST_HEADERS_PASSTHROUGH", "UNSHARP_MASKING_MODE",
             "UNSHARP_MASKING_WEIGHT", "UNSHARP_MASKING_DIVIDER", "SOURCE_URL_ENCRYPTION_KEY", "BEST_FORMAT_BY_DEFAULT",
             "BEST_FORMAT_COMPLEXITY_THRESHOLD", "BEST_FORMAT_MAX_RESOLUTION", "AUTOQUALITY_METHOD", "AUTOQUALITY_TARGET",
             "AUTOQUALITY_MIN", "AUTOQUALITY_MAX", "AUTOQUALITY_ALLOWED_ERROR", "AUTOQUALITY_FORMAT_MIN", "AUTOQUALITY_FORMAT_MAX",
             "OBJECT_DETECTION_CONFIDENCE_THRESHOLD", "OBJECT_DETECTION_GRAVITY_MODE", "OBJECT_DETECTION_FALLBACK_TO_SMART_CROP",
             "PDF_NO_BACKGROUND", "SECRET", "VIDEO_THUMBNAIL_SECOND", "VIDEO_THUMBNAIL_KEYFRAMES", "VIDEO_THUMBNAIL_PROBE_SIZE":
            settings[key] = value
        case _ where ServeCommand.encoderSettingNames.contains(key):
            settings[key] = value
        case "AUTO_WEBP", "AUTO_AVIF", "AUTO_JXL", "ENFORCE_WEBP", "ENFORCE_AVIF", "ENFORCE_JXL":
            settings[key] = value
        case "ENABLE_WEBP_DETECTION", "ENABLE_AVIF_DETECTION":
            // imgproxy's older names for AUTO_WEBP and AUTO_AVIF, which win.
            let current = key == "ENABLE_WEBP_DETECTION" ? "AUTO_WEBP" : "AUTO_AVIF"
            if settings[current] == nil { settings[current] = value }
        case "USE_S3":
            // s3:// sources from any bucket the credentials (AWS_*) can read.
            if Self.isTrue(value) { settings["S3_SOURCES"] = "*" }
        case "S3_ENDPOINT", "S3_REGION": settings[key] = value
        case "CONCURRENCY": settings["WORKERS"] = value
        case "ENABLE_VIDEO_THUMBNAILS": settings["VIDEO_THUMBNAILS"] = value
        case "ENABLE_CLIENT_HINTS": settings["CLIENT_HINTS"] = value
        case "SANITIZE_SVG": settings["SANITIZE_SVG"] = value
        case "ALWAYS_RASTERIZE_SVG":
            // Rendering is Darkroom's switch of its own: libvips marks librsvg untrusted.
            settings["ALWAYS_RASTERIZE_SVG"] = value
            if Self.isTrue(value) { settings["SVG_RENDER"] = "true" }
        case "TIMEOUT": settings["MAX_PROCESSING_SECONDS"] = value
        case "TTL": settings["CACHE_MAX_AGE"] = value
        case "MAX_SRC_FILE_SIZE":
            // 0 is "no limit" to imgproxy; Darkroom keeps its own.
            if value != "0" { settings["MAX_SOURCE_BYTES"] = value }
        case "MAX_SRC_RESOLUTION":
            // Megapixels, a fraction allowed.
            guard let megapixels = Double(value), megapixels > 0, megapixels <= 10_000 else { return "not a number of megapixels" }
            settings["MAX_SOURCE_PIXELS"] = String(Int((megapixels * 1_000_000).rounded()))
        case "MAX_RESULT_DIMENSION":
            if value != "0" { settings["MAX_RESULT_DIMENSION"] = value }
        case "ALLOWED_SOURCES":
            // Prefixes, or patterns with `*`, as imgproxy's.
            settings["ALLOW_SOURCE"] = value
        case "ALLOW_LOOPBACK_SOURCE_ADDRESSES":
            // Darkroom has one switch for loopback and private addresses.
            if allowsLoopback { settings["ALLOW_PRIVATE_NETWORKS"] = "true" }
        case "ALLOW_PRIVATE_SOURCE_ADDRESSES", "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES":
            // On by default in imgproxy for private ranges; Darkroom refuses
            // them unless loopback is allowed too.
            if Self.isTrue(value) && !allowsLoopback {
                return "private addresses are allowed only with IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"
            }
        case "PRESETS": settings["PRESET"] = value
        case "PROMETHEUS_BIND": settings["METRICS_BIND"] = value
        case "LOG_FORMAT":
            // imgproxy's structured formats are all one JSON object per line here.
            switch value.lowercased() {
            case "json", "structured", "gcp": settings["LOG_FORMAT"] = "json"
            case "pretty": settings["LOG_FORMAT"] = "text"
            default: return "expected pretty, structured, json or gcp"
            }
        case "LOCAL_FILESYSTEM_ROOT": settings["LOCAL_ROOT"] = value
        case "WATERMARK_PATH": settings["WATERMARK"] = value
        case "FALLBACK_IMAGE_PATH": settings["FALLBACK_IMAGE"] = value
        case "WATERMARK_DATA", "WATERMARK_URL", "WATERMARK_OPACITY", "FALLBACK_IMAGE_DATA", "FALLBACK_IMAGE_URL":
            settings[key] = value
        case "CUSTOM_REQUEST_HEADERS", "CUSTOM_RESPONSE_HEADERS":
            // Darkroom's variables divide fields by `\;`, imgproxy's default.
            settings[key] = value.components(separatedBy: headerSeparator).joined(separator: "\\;")
        case "CUSTOM_HEADERS_SEPARATOR": break
        case "INFO_PRESETS": settings["INFO_PRESET"] = value
        case "ALLOW_BYPASS_CACHE", "CACHE_TAGS_FORMAT", "COLOR_PROFILES_DIR", "RESPONSE_HEADERS_PASSTHROUGH": settings[key] = value
        case "MAX_CHAINED_PIPELINES":
            // Unbounded at 0 in imgproxy; Darkroom keeps its own most.
            guard let most = Int(value), most >= 0 else { return "not a whole number" }
            settings[key] = String(min(most, ImageURLOptions.maxPipelines))
        case "BIND":
            // host:port, :port or a Unix socket path.
            guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]) else {
                return "only host:port is supported"
            }
            let host = value[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            settings["HOST"] = host.isEmpty ? "0.0.0.0" : host
            settings["PORT"] = String(port)
        default:
            if let darkroom = Self.alwaysOn[key] {
                if Self.isTrue(value) == darkroom { return nil }
                return darkroom ? "always on in Darkroom" : "not supported"
            }
            return "not supported"
        }
        return nil
    }

    /// The environment with imgproxy's settings under their `DARKROOM_*`
    /// names, where no `DARKROOM_*` variable is set already.
    func merged(into environment: [String: String]) -> [String: String] {
        var merged = environment
        for (name, value) in settings where (environment["DARKROOM_\(name)"] ?? "").isEmpty {
            merged["DARKROOM_\(name)"] = value
        }
        return merged
    }
}
