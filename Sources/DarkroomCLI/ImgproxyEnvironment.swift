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
        "AUTO_ROTATE": true, "S3_ENDPOINT_USE_PATH_STYLE": true,
    ]

    /// Whether loopback sources are allowed, which Darkroom's one switch
    /// for private addresses needs (whatever order the variables come in).
    private let allowsLoopback: Bool
    /// What divides Pro's custom header fields (`\;` unless set).
    private let headerSeparator: String
    /// The buckets `IMGPROXY_USE_S3` opens: imgproxy's allowed list, else any.
    private let s3Buckets: String
    private let usesS3: Bool

    static func isTrue(_ value: String?) -> Bool { ["1", "true", "yes"].contains(value?.lowercased() ?? "") }

    init(_ environment: [String: String]) {
        allowsLoopback = Self.isTrue(environment["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"])
        usesS3 = Self.isTrue(environment["IMGPROXY_USE_S3"])
        s3Buckets = environment["IMGPROXY_S3_ALLOWED_BUCKETS"].flatMap { $0.isEmpty ? nil : $0 } ?? "*"
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
        case _ where ServeSettings.imgproxyNames[key] != nil:
            // A setting imgproxy has too, read unchanged (``ServeSettings``).
            settings[ServeSettings.imgproxyNames[key]!] = value
        case _ where ServeCommand.encoderSettingNames.contains(key):
            settings[key] = value
        case "ENABLE_WEBP_DETECTION", "ENABLE_AVIF_DETECTION":
            // imgproxy's older names for AUTO_WEBP and AUTO_AVIF, which win.
            let current = key == "ENABLE_WEBP_DETECTION" ? "AUTO_WEBP" : "AUTO_AVIF"
            if settings[current] == nil { settings[current] = value }
        case "USE_S3":
            // s3:// sources from any bucket the credentials (AWS_*) can read.
            if Self.isTrue(value) { settings["S3_SOURCES"] = s3Buckets }
        case "S3_ALLOWED_BUCKETS":
            // Read with USE_S3, which it narrows.
            if !usesS3 { return "read only with IMGPROXY_USE_S3" }
        case "S3_DENIED_BUCKETS":
            guard usesS3 else { return "read only with IMGPROXY_USE_S3" }
            settings[key] = value
        case "ALWAYS_RASTERIZE_SVG":
            // Rendering is Darkroom's switch of its own: libvips marks librsvg untrusted.
            settings["ALWAYS_RASTERIZE_SVG"] = value
            if Self.isTrue(value) { settings["SVG_RENDER"] = "true" }
        case "MAX_SRC_FILE_SIZE":
            // 0 is "no limit" to imgproxy; Darkroom keeps its own.
            if value != "0" { settings["MAX_SOURCE_BYTES"] = value }
        case "MAX_SRC_RESOLUTION":
            // Megapixels, a fraction allowed.
            guard let megapixels = Double(value), megapixels > 0, megapixels <= 10_000 else { return "not a number of megapixels" }
            settings["MAX_SOURCE_PIXELS"] = String(Int((megapixels * 1_000_000).rounded()))
        case "MAX_RESULT_DIMENSION":
            if value != "0" { settings["MAX_RESULT_DIMENSION"] = value }
        case "ALLOW_LOOPBACK_SOURCE_ADDRESSES":
            // Darkroom has one switch for loopback and private addresses.
            if allowsLoopback { settings["ALLOW_PRIVATE_NETWORKS"] = "true" }
        case "ALLOW_PRIVATE_SOURCE_ADDRESSES", "ALLOW_LINK_LOCAL_SOURCE_ADDRESSES":
            // On by default in imgproxy for private ranges; Darkroom refuses
            // them unless loopback is allowed too.
            if Self.isTrue(value) && !allowsLoopback {
                return "private addresses are allowed only with IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"
            }
        case "LOG_FORMAT":
            // imgproxy's structured formats are all one JSON object per line here.
            switch value.lowercased() {
            case "json", "structured", "gcp": settings["LOG_FORMAT"] = "json"
            case "pretty": settings["LOG_FORMAT"] = "text"
            default: return "expected pretty, structured, json or gcp"
            }
        case "CUSTOM_REQUEST_HEADERS", "CUSTOM_RESPONSE_HEADERS":
            // Darkroom's variables divide fields by `\;`, imgproxy's default.
            settings[key] = value.components(separatedBy: headerSeparator).joined(separator: "\\;")
        case "CUSTOM_HEADERS_SEPARATOR": break
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
            return Self.whyNot(key)
        }
        return nil
    }

    /// Why a variable is not read, by what it belongs to.
    static func whyNot(_ key: String) -> String {
        let groups: [(prefixes: [String], reason: String)] = [
            (["CACHE_"], "imgproxy Pro's internal cache: Darkroom's caches are --cache-dir and --result-cache s3://BUCKET"),
            (["OBJECT_DETECTION_", "CLASSIFICATION_", "ML_", "SMART_CROP_FACE_DETECTION"],
             "no neural network is loaded: objects are faces, found by dlib's face detector"),
            (["AUTOQUALITY_"], "autoquality by trained networks: Darkroom's autoquality works by size or by DSSIM"),
            (["S3_ASSUME_ROLE_", "S3_ACCESS_POINTS", "S3_USE_DECRYPTION_CLIENT"],
             "needs AWS's own services (STS, access points, client-side keys): credentials come from AWS_* or the shared credentials file"),
            (["WATERMARKS_CACHE_SIZE", "FALLBACK_IMAGES_CACHE_SIZE"],
             "watermark and fallback images are kept with sources, in the memory and disk caches (--memory-cache-mb, --cache-dir)"),
            (["USE_GCS", "GCS_", "USE_ABS", "ABS_", "USE_SWIFT", "SWIFT_"],
             "sources are http(s), local and S3 (any S3-compatible store): Google Cloud Storage, Azure and OpenStack Swift are not read"),
            (["NEW_RELIC_", "DATADOG_", "CLOUD_WATCH_", "BUGSNAG_", "HONEYBADGER_", "SENTRY_", "AIRBRAKE_", "PROMETHEUS_", "OPEN_TELEMETRY_", "SYSLOG_"],
             "Darkroom reports by Prometheus /metrics, OpenTelemetry (OTEL_* variables) and its log"),
            (["LICENSE_"], "Darkroom needs no licence"),
        ]
        for group in groups where group.prefixes.contains(where: key.hasPrefix) { return group.reason }
        return "not supported"
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
