import ArgumentParser

/// One setting of `darkroom serve`, declared once: its flag, the variables
/// it reads (`DARKROOM_*`), the `IMGPROXY_*` names read as it unchanged,
/// the range of a whole number, and its help. `--help`, the range checks,
/// the imgproxy environment and docs/settings.md are made from it.
struct ServeSetting: Sendable {
    /// The flag, without `--`; nil for a setting read from its variable only.
    let flag: String?
    let help: String
    /// The variables, as the help names them ("DARKROOM_KEY, comma-separated").
    let variables: String
    /// The value's name in `--help`.
    let value: String?
    /// A whole number's range (`Int.max`: no upper bound).
    let range: ClosedRange<Int>?
    /// imgproxy's names (without `IMGPROXY_`) for the same setting.
    let imgproxy: [String]

    init(_ flag: String?, _ help: String, _ variables: String, value: String? = nil, range: ClosedRange<Int>? = nil, imgproxy: [String] = []) {
        (self.flag, self.help, self.variables, self.value, self.range, self.imgproxy) = (flag, help, variables, value, range, imgproxy)
    }

    /// The variable's name without `DARKROOM_`.
    var variable: String {
        let name = variables.split(separator: ",").first.map(String.init) ?? variables
        return String(name.dropFirst("DARKROOM_".count))
    }
}

extension ArgumentHelp {
    /// A `serve` flag's help, from its setting.
    static func setting(_ flag: String) -> ArgumentHelp {
        let setting = ServeSettings.named(flag)
        return ArgumentHelp("\(setting.help) [\(setting.variables)]", valueName: setting.value)
    }
}

enum ServeSettings {
    /// The setting of `flag`; every flag `serve` has is here.
    static func named(_ flag: String) -> ServeSetting {
        guard let setting = byFlag[flag] else { preconditionFailure("no serve setting --\(flag)") }
        return setting
    }

    static let byFlag = Dictionary(uniqueKeysWithValues: all.compactMap { setting in setting.flag.map { ($0, setting) } })

    /// Each imgproxy name read unchanged, and the variable it stands for.
    static let imgproxyNames: [String: String] = {
        var names: [String: String] = [:]
        for setting in all {
            // A name the setting reads as its own variable too stays
            // itself; any other stands for the setting's first variable.
            let own = Set(setting.variables.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            for name in setting.imgproxy { names[name] = own.contains("DARKROOM_\(name)") ? name : setting.variable }
        }
        return names
    }()

    static let all: [ServeSetting] = [
        ServeSetting("host", "Address to listen on.", "DARKROOM_HOST"),
        ServeSetting("port", "Port to listen on; 0 for any free one.", "DARKROOM_PORT", range: 0...65_535),
        ServeSetting("list", "The gallery's photo list: a file or an http(s) URL (default: the bundled samples).", "DARKROOM_LIST"),
        ServeSetting("cache-dir", "Disk cache folder.", "DARKROOM_CACHE_DIR"),
        ServeSetting("local-root", "Serve local:///PATH sources from this folder (default: the bundled samples, when no --list is given).", "DARKROOM_LOCAL_ROOT", value: "FOLDER", imgproxy: ["LOCAL_FILESYSTEM_ROOT"]),
        ServeSetting("key", "Hex key for imgproxy URL signatures; with it, unsigned URLs are refused. Repeatable, paired with --salt in order, to accept several while keys rotate.", "DARKROOM_KEY, comma-separated", imgproxy: ["KEY"]),
        ServeSetting("salt", "Hex salt for imgproxy URL signatures; one per --key.", "DARKROOM_SALT, comma-separated", imgproxy: ["SALT"]),
        ServeSetting("signature-size", "Bytes of the digest a signature carries, 1 to 32 (default 32), as imgproxy's IMGPROXY_SIGNATURE_SIZE.", "DARKROOM_SIGNATURE_SIZE", imgproxy: ["SIGNATURE_SIZE"]),
        ServeSetting("allow-source", "A source URL prefix that may be fetched, or a pattern with * as imgproxy's ALLOWED_SOURCES (https://*.cdn.example/); repeatable.", "DARKROOM_ALLOW_SOURCE", imgproxy: ["ALLOWED_SOURCES"]),
        ServeSetting("allow-private-networks", "Also fetch from loopback and private addresses.", "DARKROOM_ALLOW_PRIVATE_NETWORKS"),
        ServeSetting("source-ca", "A PEM file of certificate authorities trusted for HTTPS sources, besides the system's; repeatable.", "DARKROOM_SOURCE_CA", value: "FILE"),
        ServeSetting("max-source-bytes", "Largest source, in bytes.", "DARKROOM_MAX_SOURCE_BYTES", range: 1...Int.max),
        ServeSetting("max-source-pixels", "Largest source, in pixels.", "DARKROOM_MAX_SOURCE_PIXELS", range: 1...Int.max),
        ServeSetting("max-result-dimension", "Largest width or height of a result, in pixels (default 8192).", "DARKROOM_MAX_RESULT_DIMENSION", range: 1...100_000),
        ServeSetting("max-processing-seconds", "Seconds one image's processing may take before it is stopped (default 20).", "DARKROOM_MAX_PROCESSING_SECONDS", range: 1...3600, imgproxy: ["TIMEOUT"]),
        ServeSetting("pdf", "Draw PDF sources' pages (page:N picks one), each in a child process of its own under a memory and CPU limit (off by default, as libvips marks its PDF loader, poppler, untrusted).", "DARKROOM_PDF"),
        ServeSetting("pdf-max-memory-mb", "The most memory (address space) the child that draws a PDF page maps, 512 to 65536 MiB; default 1024.", "DARKROOM_PDF_MAX_MEMORY_MB", value: "MB", range: 512...65_536),
        ServeSetting("pdf-no-background", "PDF pages drawn on transparency instead of white (imgproxy Pro's IMGPROXY_PDF_NO_BACKGROUND).", "DARKROOM_PDF_NO_BACKGROUND", value: "BOOL", imgproxy: ["PDF_NO_BACKGROUND"]),
        ServeSetting("video-thumbnails", "Answer video sources (MP4, QuickTime, WebM, Matroska, AVI) by one frame, decoded by FFmpeg's libraries in a child process of its own under a memory and CPU limit (off by default, as imgproxy Pro's IMGPROXY_ENABLE_VIDEO_THUMBNAILS).", "DARKROOM_VIDEO_THUMBNAILS", imgproxy: ["ENABLE_VIDEO_THUMBNAILS"]),
        ServeSetting("video-thumbnail-second", "The frame's time in seconds where the URL's vts names none; default 1.", "DARKROOM_VIDEO_THUMBNAIL_SECOND", value: "SECONDS", imgproxy: ["VIDEO_THUMBNAIL_SECOND"]),
        ServeSetting("video-thumbnail-keyframes", "The keyframe at or before that time (faster), where the URL's vtk says nothing; default false.", "DARKROOM_VIDEO_THUMBNAIL_KEYFRAMES", value: "BOOL", imgproxy: ["VIDEO_THUMBNAIL_KEYFRAMES"]),
        ServeSetting("video-thumbnail-probe-size", "The most bytes read to find a video's streams, 32 to 100000000; default 5000000.", "DARKROOM_VIDEO_THUMBNAIL_PROBE_SIZE", value: "BYTES", range: 32...100_000_000, imgproxy: ["VIDEO_THUMBNAIL_PROBE_SIZE"]),
        ServeSetting("video-max-memory-mb", "The most memory (address space) the child that decodes a video frame maps, 512 to 65536 MiB; default 1024.", "DARKROOM_VIDEO_MAX_MEMORY_MB", value: "MB", range: 512...65_536),
        ServeSetting("svg-render", "Draw SVG sources into pixels with librsvg, in a sandboxed child process (on by default, as imgproxy draws them); with --no-svg-render an SVG source is answered as SVG, sanitised, and a URL asking for pixels of one is refused.", "DARKROOM_SVG_RENDER"),
        ServeSetting("best-format-by-default", "Answer URLs that name no format in the smallest of the formats the client takes (imgproxy Pro's IMGPROXY_BEST_FORMAT_BY_DEFAULT).", "DARKROOM_BEST_FORMAT_BY_DEFAULT", imgproxy: ["BEST_FORMAT_BY_DEFAULT"]),
        ServeSetting("object-detection-size", "The longer side, in pixels, of the copy faces are looked for in (80 to 4096); faces of about 80 pixels at that size are found. Default 3200: faces from about 2% of the photo's longer side.", "DARKROOM_OBJECT_DETECTION_SIZE", value: "PIXELS"),
        ServeSetting("object-detection-confidence-threshold", "Faces found less surely than this (0 to below 1) are left out; default 0.2 (imgproxy Pro's).", "DARKROOM_OBJECT_DETECTION_CONFIDENCE_THRESHOLD", value: "NUMBER", imgproxy: ["OBJECT_DETECTION_CONFIDENCE_THRESHOLD"]),
        ServeSetting("object-detection-gravity-mode", "How object gravity chooses: max_score_area (default), one_best or one_best_centermost.", "DARKROOM_OBJECT_DETECTION_GRAVITY_MODE", value: "MODE", imgproxy: ["OBJECT_DETECTION_GRAVITY_MODE"]),
        ServeSetting("object-detection-fallback-to-smart-crop", "Where object gravity finds nothing: smart gravity (true, default) or the centre.", "DARKROOM_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP", value: "BOOL", imgproxy: ["OBJECT_DETECTION_FALLBACK_TO_SMART_CROP"]),
        ServeSetting("best-format-complexity-threshold", "Below this complexity (0 to 255) the best format tries lossless encodings; default 5.5 (imgproxy Pro's).", "DARKROOM_BEST_FORMAT_COMPLEXITY_THRESHOLD", value: "NUMBER", imgproxy: ["BEST_FORMAT_COMPLEXITY_THRESHOLD"]),
        ServeSetting("best-format-max-resolution", "Above this many megapixels the best format writes one format without trying the others; 0: never (default).", "DARKROOM_BEST_FORMAT_MAX_RESOLUTION", value: "MEGAPIXELS", imgproxy: ["BEST_FORMAT_MAX_RESOLUTION"]),
        ServeSetting("always-rasterize-svg", "Render SVG sources asked without a format too, instead of answering them as SVG (imgproxy's IMGPROXY_ALWAYS_RASTERIZE_SVG); needs --svg-render.", "DARKROOM_ALWAYS_RASTERIZE_SVG"),
        ServeSetting("sanitize-svg", "Sanitise SVG sources before anything reads them: scripts, event handlers, foreignObject and external references removed, DTDs refused (imgproxy's IMGPROXY_SANITIZE_SVG; default true).", "DARKROOM_SANITIZE_SVG", value: "true|false", imgproxy: ["SANITIZE_SVG"]),
        ServeSetting("jpeg-xl", "Read JPEG XL sources and write JPEG XL answers (f:jxl); off by default, as libvips marks its JPEG XL codec untrusted.", "DARKROOM_JPEG_XL"),
        ServeSetting("max-animation-frames", "Frames of an animated GIF or WebP answered, from the first (default 100; 1 answers a still image).", "DARKROOM_MAX_ANIMATION_FRAMES", range: 1...10_000, imgproxy: ["MAX_ANIMATION_FRAMES"]),
        ServeSetting("max-animation-frame-resolution", "Megapixels each frame of an animated source may have; 0: the frames together are held to --max-source-pixels (the default, as imgproxy's).", "DARKROOM_MAX_ANIMATION_FRAME_RESOLUTION", value: "MEGAPIXELS", imgproxy: ["MAX_ANIMATION_FRAME_RESOLUTION"]),
        ServeSetting("skip-processing-formats", "Source formats answered as they came, where the answer may be in their format, unless a URL's skp says otherwise; comma-separated (imgproxy's IMGPROXY_SKIP_PROCESSING_FORMATS).", "DARKROOM_SKIP_PROCESSING_FORMATS", value: "FORMATS", imgproxy: ["SKIP_PROCESSING_FORMATS"]),
        ServeSetting("max-jpeg-scans", "Scans a progressive JPEG may have, 1 to 10000 (default 100; encoders write at most a few dozen): libjpeg reads them all before the first row.", "DARKROOM_MAX_JPEG_SCANS", range: 1...10_000),
        ServeSetting("max-heif-tiles", "Tiles a HEIF or AVIF image's grid may have decoded, counted from the file before any decoder runs, 1 to 10000 (default 256; an iPhone's 48 MP HEIC has 192).", "DARKROOM_MAX_HEIF_TILES", range: 1...10_000),
        ServeSetting("max-source-frames", "Frames an animated GIF or WebP may hold, counted from the file before any decoder runs, 1 to 1000000 (default 10000; --max-animation-frames says how many of them are answered).", "DARKROOM_MAX_SOURCE_FRAMES", range: 1...1_000_000),
        ServeSetting("max-request-memory-mb", "Memory one request may hold, in MiB: its decode, the steps that keep it whole and the encoder, estimated before anything is allocated (default: a quarter of the cgroup's memory limit, else of the machine's memory, 64 to 512).", "DARKROOM_MAX_REQUEST_MEMORY_MB", range: 16...65_536),
        ServeSetting("download-timeout", "Seconds a download may take.", "DARKROOM_DOWNLOAD_TIMEOUT", range: 1...Int.max, imgproxy: ["DOWNLOAD_TIMEOUT"]),
        ServeSetting("cache-max-age", "max-age of images' Cache-Control, in seconds.", "DARKROOM_CACHE_MAX_AGE", range: 0...Int.max, imgproxy: ["TTL"]),
        ServeSetting("client-hints", "Read the DPR and Width client hints (and Sec-CH-DPR, Sec-CH-Width) as a URL's dpr and width where it sets none, and name them in Vary (imgproxy's IMGPROXY_ENABLE_CLIENT_HINTS).", "DARKROOM_CLIENT_HINTS", imgproxy: ["ENABLE_CLIENT_HINTS"]),
        ServeSetting("cookie-passthrough", "Send a client's cookies on to sources on the host it asked (or --cookie-base-url's), under that URL's directory, as a browser would (imgproxy's IMGPROXY_COOKIE_PASSTHROUGH); answers are cached apart for each set of cookies.", "DARKROOM_COOKIE_PASSTHROUGH", imgproxy: ["COOKIE_PASSTHROUGH"]),
        ServeSetting("request-headers-passthrough", "Header fields of a client's request sent on to its sources, comma-separated (imgproxy Pro's IMGPROXY_REQUEST_HEADERS_PASSTHROUGH); answers are cached apart for each set of them.", "DARKROOM_REQUEST_HEADERS_PASSTHROUGH", value: "NAMES", imgproxy: ["REQUEST_HEADERS_PASSTHROUGH"]),
        ServeSetting("cookie-passthrough-all", "With --cookie-passthrough, send every cookie to every source (imgproxy's IMGPROXY_COOKIE_PASSTHROUGH_ALL).", "DARKROOM_COOKIE_PASSTHROUGH_ALL", imgproxy: ["COOKIE_PASSTHROUGH_ALL"]),
        ServeSetting("cookie-base-url", "The URL a client's cookies belong to, for --cookie-passthrough (default: the address the client asked, from X-Forwarded-Proto, X-Forwarded-Host or Host, and X-Forwarded-Port; imgproxy's IMGPROXY_COOKIE_BASE_URL).", "DARKROOM_COOKIE_BASE_URL", value: "URL", imgproxy: ["COOKIE_BASE_URL"]),
        ServeSetting("cache-control-passthrough", "Send the origin's Cache-Control (else its Expires, as a max-age) in place of --cache-max-age where it sent one (imgproxy's IMGPROXY_CACHE_CONTROL_PASSTHROUGH).", "DARKROOM_CACHE_CONTROL_PASSTHROUGH", imgproxy: ["CACHE_CONTROL_PASSTHROUGH"]),
        ServeSetting("max-waiting", "Refuse new work (429) while more processing runs than this wait.", "DARKROOM_MAX_WAITING", range: 0...Int.max),
        ServeSetting("keep-alive-timeout", "Seconds a connection may wait idle between requests, 1...3600 (default 10, as imgproxy's IMGPROXY_KEEP_ALIVE_TIMEOUT).", "DARKROOM_KEEP_ALIVE_TIMEOUT", range: 1...3600, imgproxy: ["KEEP_ALIVE_TIMEOUT"]),
        ServeSetting("read-request-timeout", "Seconds a client may take to send a request's head and body once its first byte came, 1...3600 (default 10, as imgproxy's IMGPROXY_READ_REQUEST_TIMEOUT).", "DARKROOM_READ_REQUEST_TIMEOUT", range: 1...3600, imgproxy: ["READ_REQUEST_TIMEOUT"]),
        ServeSetting("max-connections", "Connections held at once; past it a new one is answered 503 and closed (default: three quarters of the file limit, at most 10000).", "DARKROOM_MAX_CONNECTIONS", range: 1...1_000_000),
        ServeSetting("max-connections-per-client", "Connections held at once from one client address, 0 for no limit (default 256; 0 behind a proxy).", "DARKROOM_MAX_CONNECTIONS_PER_CLIENT", range: 0...1_000_000),
        ServeSetting("shutdown-timeout", "Seconds in-flight requests get to finish on SIGINT/SIGTERM.", "DARKROOM_SHUTDOWN_TIMEOUT", range: 0...Int.max),
        ServeSetting("book-lifetime", "Seconds a finished photobook stays downloadable.", "DARKROOM_BOOK_LIFETIME", range: 1...Int.max),
        ServeSetting("memory-cache-mb", "Memory cache of processed images, in MiB (default: an eighth of the cgroup's memory limit, at most 256).", "DARKROOM_MEMORY_CACHE_MB", range: 0...Int.max),
        ServeSetting("workers", "Processing threads (default: one per core).", "DARKROOM_WORKERS", range: 1...256, imgproxy: ["WORKERS", "CONCURRENCY"]),
        ServeSetting("source-min-uses", "Versions asked of a source before it is kept in the disk cache, as nginx's proxy_cache_min_uses (default 2: a source asked in one version only is never written, and the latest sources wait in memory for a second; 1 keeps every source).", "DARKROOM_SOURCE_MIN_USES", range: 1...1000),
        ServeSetting("access-log", "Log every request at info level.", "DARKROOM_ACCESS_LOG"),
        ServeSetting("log-format", "How log lines are written to standard error: text, or json (one object per line, with time, level, message, request_id and the rest).", "DARKROOM_LOG_FORMAT", value: "FORMAT"),
        ServeSetting("last-modified", "Send the source's Last-Modified with its images and answer If-Modified-Since with 304 (imgproxy's IMGPROXY_USE_LAST_MODIFIED).", "DARKROOM_USE_LAST_MODIFIED", imgproxy: ["USE_LAST_MODIFIED"]),
        ServeSetting("user-agent", "The User-Agent sources are asked with; %current_version is Darkroom's (imgproxy's IMGPROXY_USER_AGENT).", "DARKROOM_USER_AGENT", value: "TEXT", imgproxy: ["USER_AGENT"]),
        ServeSetting("max-redirects", "How many redirects a source may take, 0 to 20, each hop checked again (default 5; imgproxy's IMGPROXY_MAX_REDIRECTS).", "DARKROOM_MAX_REDIRECTS", value: "N", range: 0...20, imgproxy: ["MAX_REDIRECTS"]),
        ServeSetting("allow-origin", "Send Access-Control-Allow-Origin: ORIGIN with image answers, and answer the OPTIONS preflight (imgproxy's IMGPROXY_ALLOW_ORIGIN).", "DARKROOM_ALLOW_ORIGIN", value: "ORIGIN", imgproxy: ["ALLOW_ORIGIN"]),
        ServeSetting("server-name", "The Server field of every answer (default darkroom; imgproxy's IMGPROXY_SERVER_NAME).", "DARKROOM_SERVER_NAME", value: "NAME", imgproxy: ["SERVER_NAME"]),
        ServeSetting("path-prefix", "Serve image URLs under this path (/images/SIGNATURE/OPTIONS/...) instead of at the root; /img/ always works (imgproxy's IMGPROXY_PATH_PREFIX).", "DARKROOM_PATH_PREFIX", value: "PATH", imgproxy: ["PATH_PREFIX"]),
        ServeSetting("metrics-bind", "Serve /metrics on this address instead of the main one, to keep it off the public port (imgproxy's IMGPROXY_PROMETHEUS_BIND).", "DARKROOM_METRICS_BIND", value: "HOST:PORT", imgproxy: ["PROMETHEUS_BIND"]),
        ServeSetting("result-cache", "A result cache shared by replicas, in S3-compatible storage; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION.", "DARKROOM_RESULT_CACHE", value: "s3://BUCKET/PREFIX"),
        ServeSetting("result-cache-timeout", "Seconds a read from the result cache may take before the request goes on without it (default 2).", "DARKROOM_RESULT_CACHE_TIMEOUT", range: 1...3600),
        ServeSetting("s3-endpoint", "The S3 store's address, for the result cache and S3 sources (default: AWS_ENDPOINT_URL, else AWS's for the region).", "DARKROOM_S3_ENDPOINT", value: "URL", imgproxy: ["S3_ENDPOINT"]),
        ServeSetting("source-cache", "With --result-cache, keep downloaded sources there too, so no replica asks the origin for a photo another has.", "DARKROOM_SOURCE_CACHE"),
        ServeSetting("s3-sources", "Serve s3://BUCKET/KEY sources from these buckets (comma-separated; * for any the credentials can read).", "DARKROOM_S3_SOURCES", value: "BUCKETS"),
        ServeSetting("preset", "A named preset for pr:, as NAME=OPTIONS (rs:fill:300:300/sepia:0.8); repeatable; one named default applies to every URL.", "DARKROOM_PRESET", value: "NAME=OPTIONS", imgproxy: ["PRESETS"]),
        ServeSetting("watermark", "The image wm: lays over results (a PNG with transparency, usually).", "DARKROOM_WATERMARK", value: "FILE", imgproxy: ["WATERMARK_PATH"]),
        ServeSetting("fallback-image", "Answered, with the URL's options, in place of a source that cannot be had (not found, failing, not an image); the source's status is in the Darkroom-Source-Status header.", "DARKROOM_FALLBACK_IMAGE", value: "FILE", imgproxy: ["FALLBACK_IMAGE_PATH"]),
        ServeSetting("watermark-url", "An image fetched as sources are, laid by wm: over --watermark (imgproxy's IMGPROXY_WATERMARK_URL; DARKROOM_WATERMARK_DATA takes the image itself, base64-encoded).", "DARKROOM_WATERMARK_URL", value: "URL", imgproxy: ["WATERMARK_URL"]),
        ServeSetting("watermark-opacity", "Multiplies every wm: opacity, 0 to 1 (imgproxy's IMGPROXY_WATERMARK_OPACITY).", "DARKROOM_WATERMARK_OPACITY", imgproxy: ["WATERMARK_OPACITY"]),
        ServeSetting("fallback-image-url", "A fallback image fetched as sources are, over --fallback-image (imgproxy's IMGPROXY_FALLBACK_IMAGE_URL; DARKROOM_FALLBACK_IMAGE_DATA takes the image itself, base64-encoded).", "DARKROOM_FALLBACK_IMAGE_URL", value: "URL", imgproxy: ["FALLBACK_IMAGE_URL"]),
        ServeSetting("fallback-image-http-code", "The status of an answer made with the fallback image; 0: the status the source's error has (default 200, as imgproxy's).", "DARKROOM_FALLBACK_IMAGE_HTTP_CODE", value: "CODE", range: 0...599, imgproxy: ["FALLBACK_IMAGE_HTTP_CODE"]),
        ServeSetting("fallback-image-ttl", "The max-age, in seconds, of an answer made with the fallback image; 0: --cache-max-age's, as imgproxy's (the default).", "DARKROOM_FALLBACK_IMAGE_TTL", value: "SECONDS", range: 0...Int.max, imgproxy: ["FALLBACK_IMAGE_TTL"]),
        ServeSetting("custom-response-header", "A header field added to every image answer, as NAME=VALUE; repeatable (imgproxy Pro's IMGPROXY_CUSTOM_RESPONSE_HEADERS).", "DARKROOM_CUSTOM_RESPONSE_HEADERS, divided by \\;", value: "NAME=VALUE"),
        ServeSetting("response-headers-passthrough", "Header fields of the origin's answer passed on to image answers, comma-separated; kept with the source and the result in every cache (imgproxy Pro's IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH).", "DARKROOM_RESPONSE_HEADERS_PASSTHROUGH", value: "NAMES", imgproxy: ["RESPONSE_HEADERS_PASSTHROUGH"]),
        ServeSetting("custom-request-header", "A header field sent with every source request, as NAME=VALUE; repeatable (imgproxy Pro's IMGPROXY_CUSTOM_REQUEST_HEADERS).", "DARKROOM_CUSTOM_REQUEST_HEADERS, divided by \\;", value: "NAME=VALUE"),
        ServeSetting("info-preset", "A named preset for /info URLs, as NAME=OPTIONS; repeatable; where any is given, /info uses these and not --preset (imgproxy Pro's IMGPROXY_INFO_PRESETS).", "DARKROOM_INFO_PRESET", value: "NAME=OPTIONS", imgproxy: ["INFO_PRESETS"]),
        ServeSetting("allow-bypass-cache", "Let URLs carry bc (bypass_cache): each such request fetches and processes anew, so an attacker who can write URLs can load the origin (imgproxy Pro's IMGPROXY_ALLOW_BYPASS_CACHE).", "DARKROOM_ALLOW_BYPASS_CACHE", imgproxy: ["ALLOW_BYPASS_CACHE"]),
        ServeSetting("color-profiles-dir", "The folder of ICC profiles a URL's cp may name, read at start (imgproxy Pro's IMGPROXY_COLOR_PROFILES_DIR; default /usr/share/color/icc).", "DARKROOM_COLOR_PROFILES_DIR", value: "FOLDER", imgproxy: ["COLOR_PROFILES_DIR"]),
        ServeSetting("max-chained-pipelines", "The most pipelines a URL may chain with -, 1 to 16 (imgproxy Pro's IMGPROXY_MAX_CHAINED_PIPELINES; default and 0: 16).", "DARKROOM_MAX_CHAINED_PIPELINES"),
        ServeSetting("cache-tags-format", "The header fields a URL's ct tags go in: all, cloudfront (x-amz-meta-cache-tag), cloudflare (Cache-Tag) or none (imgproxy Pro's IMGPROXY_CACHE_TAGS_FORMAT; default all).", "DARKROOM_CACHE_TAGS_FORMAT", imgproxy: ["CACHE_TAGS_FORMAT"]),
        ServeSetting("info-gps", "Include a photo's GPS position in /info answers when its EXIF has one.", "DARKROOM_INFO_GPS"),
        ServeSetting("only-presets", "Image URLs name presets only, in one segment (/img/SIG/thumb:sepia/plain/...).", "DARKROOM_ONLY_PRESETS", imgproxy: ["ONLY_PRESETS"]),
        ServeSetting("quality", "Quality of lossy answers a URL's q does not set, 1 to 100 (default 80).", "DARKROOM_QUALITY", imgproxy: ["QUALITY"]),
        ServeSetting("format-quality", "Quality per output format, over --quality (default webp=79,avif=63,jxl=77, as imgproxy).", "DARKROOM_FORMAT_QUALITY", value: "FORMAT=Q,...", imgproxy: ["FORMAT_QUALITY"]),
        ServeSetting("jpeg-progressive", "Write progressive JPEG answers.", "DARKROOM_JPEG_PROGRESSIVE", imgproxy: ["JPEG_PROGRESSIVE"]),
        ServeSetting("autoquality", "Autoquality, as imgproxy Pro's: size (the highest quality whose file fits TARGET bytes) or dssim (the lowest whose structural dissimilarity is at most TARGET, 0.02 by default, within ALLOWED_ERROR), over qualities MIN to MAX (70 to 80); off by default; a URL's aq overrides it.", "DARKROOM_AUTOQUALITY_METHOD, DARKROOM_AUTOQUALITY_TARGET, DARKROOM_AUTOQUALITY_MIN, DARKROOM_AUTOQUALITY_MAX, DARKROOM_AUTOQUALITY_ALLOWED_ERROR", value: "METHOD[:TARGET:MIN:MAX:ALLOWED_ERROR]", imgproxy: ["AUTOQUALITY_METHOD", "AUTOQUALITY_TARGET", "AUTOQUALITY_MIN", "AUTOQUALITY_MAX", "AUTOQUALITY_ALLOWED_ERROR"]),
        ServeSetting("autoquality-format-min", "Per-format lowest qualities for autoquality, as avif=60,webp=70.", "DARKROOM_AUTOQUALITY_FORMAT_MIN", value: "FORMAT=QUALITY,...", imgproxy: ["AUTOQUALITY_FORMAT_MIN"]),
        ServeSetting("autoquality-format-max", "Per-format highest qualities for autoquality, as avif=65.", "DARKROOM_AUTOQUALITY_FORMAT_MAX", value: "FORMAT=QUALITY,...", imgproxy: ["AUTOQUALITY_FORMAT_MAX"]),
        ServeSetting("unsharp-masking", "Unsharp masking after a resize, as imgproxy Pro's: none (the default, as imgproxy's open-source edition), auto (after a resize that made the image smaller, unless sharpen is set) or always, with a weight (default 1) and a divider (default 24); a URL's ush overrides it.", "DARKROOM_UNSHARP_MASKING_MODE, DARKROOM_UNSHARP_MASKING_WEIGHT, DARKROOM_UNSHARP_MASKING_DIVIDER", value: "MODE[:WEIGHT:DIVIDER]", imgproxy: ["UNSHARP_MASKING_MODE", "UNSHARP_MASKING_WEIGHT", "UNSHARP_MASKING_DIVIDER"]),
        ServeSetting("preserve-hdr", "Keep 16 bits of a source that has more than 8 where the answer is PNG, TIFF, AVIF (12-bit) or JPEG XL and its steps are resizes, crops, turns, blur or sharpen (imgproxy's IMGPROXY_PRESERVE_HDR; a URL's ph overrides it).", "DARKROOM_PRESERVE_HDR", imgproxy: ["PRESERVE_HDR"]),
        ServeSetting("encoder", "An encoder setting by imgproxy's name, repeatable: png_interlaced, png_quantize, png_quantization_colors (2-256), webp_effort (1-6, default 4), webp_preset, webp_compression (lossy, near_lossless, lossless), webp_smart_subsample, avif_speed (0-9, default 8), avif_subsample (auto, on, off), jxl_effort (1-9, default 4), jpeg_no_subsample, jpeg_trellis_quant, jpeg_overshoot_deringing, jpeg_optimize_scans, jpeg_quant_table (0-8).", "DARKROOM_PNG_INTERLACED, DARKROOM_WEBP_EFFORT, ... each by its name", value: "NAME=VALUE"),
        ServeSetting("allow-security-options", "Let URLs carry imgproxy's security options (max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution, max_result_dimension).", "DARKROOM_ALLOW_SECURITY_OPTIONS", imgproxy: ["ALLOW_SECURITY_OPTIONS"]),
        ServeSetting("base-url", "Put before every source that does not start with it (imgproxy's BASE_URL).", "DARKROOM_BASE_URL", value: "URL", imgproxy: ["BASE_URL"]),
        ServeSetting("source-url-encryption-key", "The AES key, in hex (16, 24 or 32 bytes), that /enc/ sources are encrypted with (imgproxy Pro's IMGPROXY_SOURCE_URL_ENCRYPTION_KEY); needs --key and --salt, as unsigned tokens would let a client probe the encryption.", "DARKROOM_SOURCE_URL_ENCRYPTION_KEY", value: "HEX", imgproxy: ["SOURCE_URL_ENCRYPTION_KEY"]),
        ServeSetting("secret", "Image and info requests must carry Authorization: Bearer SECRET, or are refused with 403 (imgproxy's IMGPROXY_SECRET).", "DARKROOM_SECRET", value: "SECRET", imgproxy: ["SECRET"]),
        ServeSetting("url-replacements", "Source rewrites, as imgproxy's URL_REPLACEMENTS: PATTERN=REPLACEMENT;... (* within a segment, $1... in the replacement).", "DARKROOM_URL_REPLACEMENTS", value: "RULES", imgproxy: ["URL_REPLACEMENTS"]),
        ServeSetting("s3-denied-buckets", "Buckets never read as sources, comma-separated, even under --s3-sources * (imgproxy's IMGPROXY_S3_DENIED_BUCKETS).", "DARKROOM_S3_DENIED_BUCKETS", value: "BUCKETS"),
        ServeSetting("preferred-formats", "Where neither the URL nor Accept chooses the format, imgproxy's rule: the source's format when listed, else the first listed that can hold the answer (one that animates for an animation, one with alpha for alpha), comma-separated, e.g. jpeg,png,gif (imgproxy's default). Unset: the source's format where the client takes it, else JPEG, or PNG for alpha.", "DARKROOM_PREFERRED_FORMATS", value: "FORMATS", imgproxy: ["PREFERRED_FORMATS"]),
        ServeSetting("debug-headers", "Image answers carry X-Origin-Content-Length, X-Origin-Width, X-Origin-Height, X-Result-Width and X-Result-Height, as imgproxy's debug headers.", "DARKROOM_DEBUG_HEADERS", imgproxy: ["ENABLE_DEBUG_HEADERS"]),
        ServeSetting("canonical-header", "Answers of http and https sources carry Link: <source>; rel=\"canonical\" (never for encrypted sources).", "DARKROOM_CANONICAL_HEADER", imgproxy: ["SET_CANONICAL_HEADER"]),
        ServeSetting("return-attachment", "Answers are attachments (Content-Disposition: attachment) unless a URL's att:0 says otherwise.", "DARKROOM_RETURN_ATTACHMENT", imgproxy: ["RETURN_ATTACHMENT"]),
        ServeSetting("enforce-thumbnail", "HEIC and AVIF sources with an embedded thumbnail are read by it, unless a URL's eth:0 says otherwise.", "DARKROOM_ENFORCE_THUMBNAIL", imgproxy: ["ENFORCE_THUMBNAIL"]),
        // Read from their variables only.
        ServeSetting(nil, "The URL replacements and the base URL apply to wmu (watermark URLs) too, as sources' (true or false).", "DARKROOM_WATERMARK_PREPROCESS_URL", imgproxy: ["WATERMARK_PREPROCESS_URL"]),
        ServeSetting(nil, "The URL replacements and the base URL apply to fiu (fallback image URLs) too, as sources' (true or false).", "DARKROOM_FALLBACK_IMAGE_PREPROCESS_URL", imgproxy: ["FALLBACK_IMAGE_PREPROCESS_URL"]),
        ServeSetting(nil, "The watermark image itself, base64-encoded, checked to be an image at start.", "DARKROOM_WATERMARK_DATA", imgproxy: ["WATERMARK_DATA"]),
        ServeSetting(nil, "The fallback image itself, base64-encoded, checked to be an image at start.", "DARKROOM_FALLBACK_IMAGE_DATA", imgproxy: ["FALLBACK_IMAGE_DATA"]),
        ServeSetting(nil, "The only URL options allowed, comma-separated (presets may name any).", "DARKROOM_ALLOWED_PROCESSING_OPTIONS", imgproxy: ["ALLOWED_PROCESSING_OPTIONS"]),
        ServeSetting(nil, "The only info options /info URLs may name, comma-separated (presets may name any).", "DARKROOM_ALLOWED_INFO_OPTIONS", imgproxy: ["ALLOWED_INFO_OPTIONS"]),
        ServeSetting(nil, "The last segment of a base64 or encrypted source is a file name for the page's sake, not part of the source (true or false).", "DARKROOM_BASE64_URL_INCLUDES_FILENAME", imgproxy: ["BASE64_URL_INCLUDES_FILENAME"]),
        ServeSetting(nil, "The S3 store's region, where set apart from the credentials' AWS_REGION.", "DARKROOM_S3_REGION", imgproxy: ["S3_REGION"]),
        ServeSetting(nil, "Answer URLs that name no format in WebP, AVIF or JPEG XL where the client's Accept names it (true or false; unset: AVIF and WebP).", "DARKROOM_AUTO_WEBP, DARKROOM_AUTO_AVIF, DARKROOM_AUTO_JXL", imgproxy: ["AUTO_WEBP", "AUTO_AVIF", "AUTO_JXL"]),
        ServeSetting(nil, "Answer in WebP, AVIF or JPEG XL where the client's Accept names it, even a URL that names another format.", "DARKROOM_ENFORCE_WEBP, DARKROOM_ENFORCE_AVIF, DARKROOM_ENFORCE_JXL", imgproxy: ["ENFORCE_WEBP", "ENFORCE_AVIF", "ENFORCE_JXL"]),
    ]
}

extension ServeSettings {
    /// docs/settings.md: every setting, made from the table (a test fails
    /// when the page is out of date).
    static var markdown: String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var lines = [
            "# Settings of `darkroom serve`",
            "",
            "Made from the server's table of settings (`ServeSettings`); `darkroom serve --help` says the same.",
            "Each setting is a flag, or the variable named after it; a flag wins over its variable.",
            "An imgproxy deployment's `IMGPROXY_*` names in the third column are read as the setting;",
            "[Moving from imgproxy](imgproxy.md) lists the ones read with a change of unit or meaning.",
            "",
            "| Flag | Variable | imgproxy | What it does |",
            "|---|---|---|---|",
        ]
        for setting in all {
            let flag = setting.flag.map { "`--\($0)`" + (setting.value.map { " \(cell($0))" } ?? "") } ?? ""
            let range = setting.range.map { " Range: \($0.lowerBound)" + ($0.upperBound == .max ? " and up." : " to \($0.upperBound).") } ?? ""
            let imgproxy = setting.imgproxy.map { "`IMGPROXY_\($0)`" }.joined(separator: ", ")
            lines.append("| \(flag) | \(cell(setting.variables)) | \(imgproxy) | \(cell(setting.help))\(range) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
