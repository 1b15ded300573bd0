import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `darkroom serve`: the image server and the gallery.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve imgproxy-compatible image URLs and the photo gallery.",
        discussion: """
        With no arguments it serves the bundled sample photos and sample list at \
        http://127.0.0.1:8080/. Every option can also be set by the environment \
        variable named after it (DARKROOM_PORT, DARKROOM_KEY, DARKROOM_ALLOW_SOURCE \
        as a comma-separated list...); a flag wins over the variable.
        """
    )

    @Option(help: "Address to listen on. [DARKROOM_HOST]") var host: String?
    @Option(help: "Port to listen on; 0 for any free one. [DARKROOM_PORT]") var port: Int?
    @Option(help: "The gallery's photo list: a file or an http(s) URL (default: the bundled samples). [DARKROOM_LIST]") var list: String?
    @Option(help: "Disk cache folder. [DARKROOM_CACHE_DIR]") var cacheDir: String?
    @Option(help: ArgumentHelp("Serve local:///PATH sources from this folder (default: the bundled samples, when no --list is given). [DARKROOM_LOCAL_ROOT]", valueName: "FOLDER")) var localRoot: String?
    @Option(help: "Hex key for imgproxy URL signatures; with it, unsigned URLs are refused. Repeatable, paired with --salt in order, to accept several while keys rotate. [DARKROOM_KEY, comma-separated]") var key: [String] = []
    @Option(help: "Hex salt for imgproxy URL signatures; one per --key. [DARKROOM_SALT, comma-separated]") var salt: [String] = []
    @Option(help: "Bytes of the digest a signature carries, 1 to 32 (default 32), as imgproxy's IMGPROXY_SIGNATURE_SIZE. [DARKROOM_SIGNATURE_SIZE]") var signatureSize: Int?
    @Option(help: "A source URL prefix that may be fetched, or a pattern with * as imgproxy's ALLOWED_SOURCES (https://*.cdn.example/); repeatable. [DARKROOM_ALLOW_SOURCE]") var allowSource: [String] = []
    @Flag(help: "Also fetch from loopback and private addresses. [DARKROOM_ALLOW_PRIVATE_NETWORKS]") var allowPrivateNetworks = false
    @Option(help: ArgumentHelp("A PEM file of certificate authorities trusted for HTTPS sources, besides the system's; repeatable. [DARKROOM_SOURCE_CA]", valueName: "FILE")) var sourceCA: [String] = []
    @Option(help: "Largest source, in bytes. [DARKROOM_MAX_SOURCE_BYTES]") var maxSourceBytes: Int?
    @Option(help: "Largest source, in pixels. [DARKROOM_MAX_SOURCE_PIXELS]") var maxSourcePixels: Int?
    @Option(help: "Largest width or height of a result, in pixels (default 8192). [DARKROOM_MAX_RESULT_DIMENSION]") var maxResultDimension: Int?
    @Option(help: "Seconds one image's processing may take before it is stopped (default 20). [DARKROOM_MAX_PROCESSING_SECONDS]") var maxProcessingSeconds: Int?
    @Flag(name: .customLong("pdf"), help: "Draw PDF sources' pages (page:N picks one), each in a child process of its own under a memory and CPU limit (off by default, as libvips marks its PDF loader, poppler, untrusted). [DARKROOM_PDF]") var pdf = false
    @Option(name: .customLong("pdf-max-memory-mb"), help: ArgumentHelp("The most memory (address space) the child that draws a PDF page maps, 512 to 65536 MiB; default 1024. [DARKROOM_PDF_MAX_MEMORY_MB]", valueName: "MB")) var pdfMaxMemoryMb: Int?
    @Option(name: .customLong("pdf-no-background"), help: ArgumentHelp("PDF pages drawn on transparency instead of white (imgproxy Pro's IMGPROXY_PDF_NO_BACKGROUND). [DARKROOM_PDF_NO_BACKGROUND]", valueName: "BOOL")) var pdfNoBackground: String?
    @Flag(name: .customLong("video-thumbnails"), help: "Answer video sources (MP4, QuickTime, WebM, Matroska, AVI) by one frame, decoded by FFmpeg's libraries in a child process of its own under a memory and CPU limit (off by default, as imgproxy Pro's IMGPROXY_ENABLE_VIDEO_THUMBNAILS). [DARKROOM_VIDEO_THUMBNAILS]") var videoThumbnails = false
    @Option(name: .customLong("video-thumbnail-second"), help: ArgumentHelp("The frame's time in seconds where the URL's vts names none; default 1. [DARKROOM_VIDEO_THUMBNAIL_SECOND]", valueName: "SECONDS")) var videoThumbnailSecond: String?
    @Option(name: .customLong("video-thumbnail-keyframes"), help: ArgumentHelp("The keyframe at or before that time (faster), where the URL's vtk says nothing; default false. [DARKROOM_VIDEO_THUMBNAIL_KEYFRAMES]", valueName: "BOOL")) var videoThumbnailKeyframes: String?
    @Option(name: .customLong("video-thumbnail-probe-size"), help: ArgumentHelp("The most bytes read to find a video's streams, 32 to 100000000; default 5000000. [DARKROOM_VIDEO_THUMBNAIL_PROBE_SIZE]", valueName: "BYTES")) var videoThumbnailProbeSize: Int?
    @Option(name: .customLong("video-max-memory-mb"), help: ArgumentHelp("The most memory (address space) the child that decodes a video frame maps, 512 to 65536 MiB; default 1024. [DARKROOM_VIDEO_MAX_MEMORY_MB]", valueName: "MB")) var videoMaxMemoryMb: Int?
    @Flag(name: .customLong("svg-render"), inversion: .prefixedNo, help: "Draw SVG sources into pixels with librsvg, in a sandboxed child process (on by default, as imgproxy draws them); with --no-svg-render an SVG source is answered as SVG, sanitised, and a URL asking for pixels of one is refused. [DARKROOM_SVG_RENDER]") var svgRender: Bool?
    @Flag(name: .customLong("best-format-by-default"), help: "Answer URLs that name no format in the smallest of the formats the client takes (imgproxy Pro's IMGPROXY_BEST_FORMAT_BY_DEFAULT). [DARKROOM_BEST_FORMAT_BY_DEFAULT]") var bestFormatByDefault = false
    @Option(name: .customLong("object-detection-size"), help: ArgumentHelp("The longer side, in pixels, of the copy faces are looked for in (80 to 4096); faces of about 80 pixels at that size are found. Default 3200: faces from about 2% of the photo's longer side. [DARKROOM_OBJECT_DETECTION_SIZE]", valueName: "PIXELS")) var objectDetectionSize: String?
    @Option(name: .customLong("object-detection-confidence-threshold"), help: ArgumentHelp("Faces found less surely than this (0 to below 1) are left out; default 0.2 (imgproxy Pro's). [DARKROOM_OBJECT_DETECTION_CONFIDENCE_THRESHOLD]", valueName: "NUMBER")) var objectDetectionConfidenceThreshold: String?
    @Option(name: .customLong("object-detection-gravity-mode"), help: ArgumentHelp("How object gravity chooses: max_score_area (default), one_best or one_best_centermost. [DARKROOM_OBJECT_DETECTION_GRAVITY_MODE]", valueName: "MODE")) var objectDetectionGravityMode: String?
    @Option(name: .customLong("object-detection-fallback-to-smart-crop"), help: ArgumentHelp("Where object gravity finds nothing: smart gravity (true, default) or the centre. [DARKROOM_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP]", valueName: "BOOL")) var objectDetectionFallbackToSmartCrop: String?
    @Option(name: .customLong("best-format-complexity-threshold"), help: ArgumentHelp("Below this complexity (0 to 255) the best format tries lossless encodings; default 5.5 (imgproxy Pro's). [DARKROOM_BEST_FORMAT_COMPLEXITY_THRESHOLD]", valueName: "NUMBER")) var bestFormatComplexityThreshold: String?
    @Option(name: .customLong("best-format-max-resolution"), help: ArgumentHelp("Above this many megapixels the best format writes one format without trying the others; 0: never (default). [DARKROOM_BEST_FORMAT_MAX_RESOLUTION]", valueName: "MEGAPIXELS")) var bestFormatMaxResolution: String?
    @Flag(name: .customLong("always-rasterize-svg"), help: "Render SVG sources asked without a format too, instead of answering them as SVG (imgproxy's IMGPROXY_ALWAYS_RASTERIZE_SVG); needs --svg-render. [DARKROOM_ALWAYS_RASTERIZE_SVG]") var alwaysRasterizeSVG = false
    @Option(name: .customLong("sanitize-svg"), help: ArgumentHelp("Sanitise SVG sources before anything reads them: scripts, event handlers, foreignObject and external references removed, DTDs refused (imgproxy's IMGPROXY_SANITIZE_SVG; default true). [DARKROOM_SANITIZE_SVG]", valueName: "true|false")) var sanitizeSVG: String?
    @Flag(name: .customLong("jpeg-xl"), help: "Read JPEG XL sources and write JPEG XL answers (f:jxl); off by default, as libvips marks its JPEG XL codec untrusted. [DARKROOM_JPEG_XL]") var jpegXL = false
    @Option(help: "Frames of an animated GIF or WebP answered, from the first (default 100; 1 answers a still image). [DARKROOM_MAX_ANIMATION_FRAMES]") var maxAnimationFrames: Int?
    @Option(name: .customLong("max-jpeg-scans"), help: "Scans a progressive JPEG may have, 1 to 10000 (default 100; encoders write at most a few dozen): libjpeg reads them all before the first row. [DARKROOM_MAX_JPEG_SCANS]") var maxJPEGScans: Int?
    @Option(name: .customLong("max-heif-tiles"), help: "Tiles a HEIF or AVIF image's grid may have decoded, counted from the file before any decoder runs, 1 to 10000 (default 256; an iPhone's 48 MP HEIC has 192). [DARKROOM_MAX_HEIF_TILES]") var maxHEIFTiles: Int?
    @Option(help: "Frames an animated GIF or WebP may hold, counted from the file before any decoder runs, 1 to 1000000 (default 10000; --max-animation-frames says how many of them are answered). [DARKROOM_MAX_SOURCE_FRAMES]") var maxSourceFrames: Int?
    @Option(help: "Memory one request may hold, in MiB: its decode, the steps that keep it whole and the encoder, estimated before anything is allocated (default: a quarter of the cgroup's memory limit, else of the machine's memory, 64 to 512). [DARKROOM_MAX_REQUEST_MEMORY_MB]") var maxRequestMemoryMb: Int?
    @Option(help: "Seconds a download may take. [DARKROOM_DOWNLOAD_TIMEOUT]") var downloadTimeout: Int?
    @Option(help: "max-age of images' Cache-Control, in seconds. [DARKROOM_CACHE_MAX_AGE]") var cacheMaxAge: Int?
    @Flag(help: "Read the DPR and Width client hints (and Sec-CH-DPR, Sec-CH-Width) as a URL's dpr and width where it sets none, and name them in Vary (imgproxy's IMGPROXY_ENABLE_CLIENT_HINTS). [DARKROOM_CLIENT_HINTS]") var clientHints = false
    @Flag(help: "Send a client's cookies on to sources on the host it asked (or --cookie-base-url's), under that URL's directory, as a browser would (imgproxy's IMGPROXY_COOKIE_PASSTHROUGH); answers are cached apart for each set of cookies. [DARKROOM_COOKIE_PASSTHROUGH]") var cookiePassthrough = false
    @Option(help: ArgumentHelp("Header fields of a client's request sent on to its sources, comma-separated (imgproxy Pro's IMGPROXY_REQUEST_HEADERS_PASSTHROUGH); answers are cached apart for each set of them. [DARKROOM_REQUEST_HEADERS_PASSTHROUGH]", valueName: "NAMES")) var requestHeadersPassthrough: String?
    @Flag(help: "With --cookie-passthrough, send every cookie to every source (imgproxy's IMGPROXY_COOKIE_PASSTHROUGH_ALL). [DARKROOM_COOKIE_PASSTHROUGH_ALL]") var cookiePassthroughAll = false
    @Option(help: ArgumentHelp("The URL a client's cookies belong to, for --cookie-passthrough (default: the address the client asked, from X-Forwarded-Proto, X-Forwarded-Host or Host, and X-Forwarded-Port; imgproxy's IMGPROXY_COOKIE_BASE_URL). [DARKROOM_COOKIE_BASE_URL]", valueName: "URL")) var cookieBaseUrl: String?
    @Flag(help: "Send the origin's Cache-Control (else its Expires, as a max-age) in place of --cache-max-age where it sent one (imgproxy's IMGPROXY_CACHE_CONTROL_PASSTHROUGH). [DARKROOM_CACHE_CONTROL_PASSTHROUGH]") var cacheControlPassthrough = false
    @Option(help: "Refuse new work (429) while more processing runs than this wait. [DARKROOM_MAX_WAITING]") var maxWaiting: Int?
    @Option(help: "Seconds a connection may wait idle between requests, 1...3600 (default 10, as imgproxy's IMGPROXY_KEEP_ALIVE_TIMEOUT). [DARKROOM_KEEP_ALIVE_TIMEOUT]") var keepAliveTimeout: Int?
    @Option(help: "Seconds a client may take to send a request's head and body once its first byte came, 1...3600 (default 10, as imgproxy's IMGPROXY_READ_REQUEST_TIMEOUT). [DARKROOM_READ_REQUEST_TIMEOUT]") var readRequestTimeout: Int?
    @Option(help: "Connections held at once; past it a new one is answered 503 and closed (default: three quarters of the file limit, at most 10000). [DARKROOM_MAX_CONNECTIONS]") var maxConnections: Int?
    @Option(help: "Connections held at once from one client address, 0 for no limit (default 256; 0 behind a proxy). [DARKROOM_MAX_CONNECTIONS_PER_CLIENT]") var maxConnectionsPerClient: Int?
    @Option(help: "Seconds in-flight requests get to finish on SIGINT/SIGTERM. [DARKROOM_SHUTDOWN_TIMEOUT]") var shutdownTimeout: Int?
    @Option(help: "Seconds a finished photobook stays downloadable. [DARKROOM_BOOK_LIFETIME]") var bookLifetime: Int?
    @Option(help: "Memory cache of processed images, in MiB (default: an eighth of the cgroup's memory limit, at most 256). [DARKROOM_MEMORY_CACHE_MB]") var memoryCacheMb: Int?
    @Option(help: "Processing threads (default: one per core). [DARKROOM_WORKERS]") var workers: Int?
    @Option(help: "Versions asked of a source before it is kept in the disk cache, as nginx's proxy_cache_min_uses (default 2: a source asked in one version only is never written, and the latest sources wait in memory for a second; 1 keeps every source). [DARKROOM_SOURCE_MIN_USES]") var sourceMinUses: Int?
    @Flag(help: "Log every request at info level. [DARKROOM_ACCESS_LOG]") var accessLog = false
    @Option(help: ArgumentHelp("How log lines are written to standard error: text, or json (one object per line, with time, level, message, request_id and the rest). [DARKROOM_LOG_FORMAT]", valueName: "FORMAT")) var logFormat: String?
    @Flag(inversion: .prefixedNo, help: "Send the source's Last-Modified with its images and answer If-Modified-Since with 304 (imgproxy's IMGPROXY_USE_LAST_MODIFIED). [DARKROOM_USE_LAST_MODIFIED]") var lastModified: Bool?
    @Option(help: ArgumentHelp("The User-Agent sources are asked with; %current_version is Darkroom's (imgproxy's IMGPROXY_USER_AGENT). [DARKROOM_USER_AGENT]", valueName: "TEXT")) var userAgent: String?
    @Option(help: ArgumentHelp("How many redirects a source may take, 0 to 20, each hop checked again (default 5; imgproxy's IMGPROXY_MAX_REDIRECTS). [DARKROOM_MAX_REDIRECTS]", valueName: "N")) var maxRedirects: Int?
    @Option(help: ArgumentHelp("Send Access-Control-Allow-Origin: ORIGIN with image answers, and answer the OPTIONS preflight (imgproxy's IMGPROXY_ALLOW_ORIGIN). [DARKROOM_ALLOW_ORIGIN]", valueName: "ORIGIN")) var allowOrigin: String?
    @Option(help: ArgumentHelp("Serve image URLs under this path (/images/SIGNATURE/OPTIONS/...) instead of at the root; /img/ always works (imgproxy's IMGPROXY_PATH_PREFIX). [DARKROOM_PATH_PREFIX]", valueName: "PATH")) var pathPrefix: String?
    @Option(help: ArgumentHelp("Serve /metrics on this address instead of the main one, to keep it off the public port (imgproxy's IMGPROXY_PROMETHEUS_BIND). [DARKROOM_METRICS_BIND]", valueName: "HOST:PORT")) var metricsBind: String?
    @Option(help: ArgumentHelp("A result cache shared by replicas, in S3-compatible storage; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION. [DARKROOM_RESULT_CACHE]", valueName: "s3://BUCKET/PREFIX")) var resultCache: String?
    @Option(help: "Seconds a read from the result cache may take before the request goes on without it (default 2). [DARKROOM_RESULT_CACHE_TIMEOUT]") var resultCacheTimeout: Int?
    @Option(help: ArgumentHelp("The S3 store's address, for the result cache and S3 sources (default: AWS_ENDPOINT_URL, else AWS's for the region). [DARKROOM_S3_ENDPOINT]", valueName: "URL")) var s3Endpoint: String?
    @Flag(help: "With --result-cache, keep downloaded sources there too, so no replica asks the origin for a photo another has. [DARKROOM_SOURCE_CACHE]") var sourceCache = false
    @Option(help: ArgumentHelp("Serve s3://BUCKET/KEY sources from these buckets (comma-separated; * for any the credentials can read). [DARKROOM_S3_SOURCES]", valueName: "BUCKETS")) var s3Sources: String?
    @Option(help: ArgumentHelp("A named preset for pr:, as NAME=OPTIONS (rs:fill:300:300/sepia:0.8); repeatable; one named default applies to every URL. [DARKROOM_PRESET]", valueName: "NAME=OPTIONS")) var preset: [String] = []
    @Option(help: ArgumentHelp("The image wm: lays over results (a PNG with transparency, usually). [DARKROOM_WATERMARK]", valueName: "FILE")) var watermark: String?
    @Option(help: ArgumentHelp("Answered, with the URL's options, in place of a source that cannot be had (not found, failing, not an image); the source's status is in the Darkroom-Source-Status header. [DARKROOM_FALLBACK_IMAGE]", valueName: "FILE")) var fallbackImage: String?
    @Option(help: ArgumentHelp("An image fetched as sources are, laid by wm: over --watermark (imgproxy's IMGPROXY_WATERMARK_URL; DARKROOM_WATERMARK_DATA takes the image itself, base64-encoded). [DARKROOM_WATERMARK_URL]", valueName: "URL")) var watermarkUrl: String?
    @Option(help: "Multiplies every wm: opacity, 0 to 1 (imgproxy's IMGPROXY_WATERMARK_OPACITY). [DARKROOM_WATERMARK_OPACITY]") var watermarkOpacity: Double?
    @Option(help: ArgumentHelp("A fallback image fetched as sources are, over --fallback-image (imgproxy's IMGPROXY_FALLBACK_IMAGE_URL; DARKROOM_FALLBACK_IMAGE_DATA takes the image itself, base64-encoded). [DARKROOM_FALLBACK_IMAGE_URL]", valueName: "URL")) var fallbackImageUrl: String?
    @Option(help: ArgumentHelp("A header field added to every image answer, as NAME=VALUE; repeatable (imgproxy Pro's IMGPROXY_CUSTOM_RESPONSE_HEADERS). [DARKROOM_CUSTOM_RESPONSE_HEADERS, divided by \\;]", valueName: "NAME=VALUE")) var customResponseHeader: [String] = []
    @Option(help: ArgumentHelp("Header fields of the origin's answer passed on to image answers, comma-separated; kept with the source and the result in every cache (imgproxy Pro's IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH). [DARKROOM_RESPONSE_HEADERS_PASSTHROUGH]", valueName: "NAMES")) var responseHeadersPassthrough: String?
    @Option(help: ArgumentHelp("A header field sent with every source request, as NAME=VALUE; repeatable (imgproxy Pro's IMGPROXY_CUSTOM_REQUEST_HEADERS). [DARKROOM_CUSTOM_REQUEST_HEADERS, divided by \\;]", valueName: "NAME=VALUE")) var customRequestHeader: [String] = []
    @Option(help: ArgumentHelp("A named preset for /info URLs, as NAME=OPTIONS; repeatable; where any is given, /info uses these and not --preset (imgproxy Pro's IMGPROXY_INFO_PRESETS). [DARKROOM_INFO_PRESET]", valueName: "NAME=OPTIONS")) var infoPreset: [String] = []
    @Flag(help: "Let URLs carry bc (bypass_cache): each such request fetches and processes anew, so an attacker who can write URLs can load the origin (imgproxy Pro's IMGPROXY_ALLOW_BYPASS_CACHE). [DARKROOM_ALLOW_BYPASS_CACHE]") var allowBypassCache = false
    @Option(help: ArgumentHelp("The folder of ICC profiles a URL's cp may name, read at start (imgproxy Pro's IMGPROXY_COLOR_PROFILES_DIR; default /usr/share/color/icc). [DARKROOM_COLOR_PROFILES_DIR]", valueName: "FOLDER")) var colorProfilesDir: String?
    @Option(help: "The most pipelines a URL may chain with -, 1 to 16 (imgproxy Pro's IMGPROXY_MAX_CHAINED_PIPELINES; default and 0: 16). [DARKROOM_MAX_CHAINED_PIPELINES]") var maxChainedPipelines: Int?
    @Option(help: "The header fields a URL's ct tags go in: all, cloudfront (x-amz-meta-cache-tag), cloudflare (Cache-Tag) or none (imgproxy Pro's IMGPROXY_CACHE_TAGS_FORMAT; default all). [DARKROOM_CACHE_TAGS_FORMAT]") var cacheTagsFormat: String?
    @Flag(help: "Include a photo's GPS position in /info answers when its EXIF has one. [DARKROOM_INFO_GPS]") var infoGps = false
    @Flag(help: "Image URLs name presets only, in one segment (/img/SIG/thumb:sepia/plain/...). [DARKROOM_ONLY_PRESETS]") var onlyPresets = false
    @Option(help: "Quality of lossy answers a URL's q does not set, 1 to 100 (default 80). [DARKROOM_QUALITY]") var quality: Int?
    @Option(help: ArgumentHelp("Quality per output format, over --quality (default webp=79,avif=63,jxl=77, as imgproxy). [DARKROOM_FORMAT_QUALITY]", valueName: "FORMAT=Q,...")) var formatQuality: String?
    @Flag(help: "Write progressive JPEG answers. [DARKROOM_JPEG_PROGRESSIVE]") var jpegProgressive = false
    @Option(help: ArgumentHelp("Autoquality, as imgproxy Pro's: size (the highest quality whose file fits TARGET bytes) or dssim (the lowest whose structural dissimilarity is at most TARGET, 0.02 by default, within ALLOWED_ERROR), over qualities MIN to MAX (70 to 80); off by default; a URL's aq overrides it. [DARKROOM_AUTOQUALITY_METHOD, _TARGET, _MIN, _MAX, _ALLOWED_ERROR]", valueName: "METHOD[:TARGET:MIN:MAX:ALLOWED_ERROR]")) var autoquality: String?
    @Option(name: .customLong("autoquality-format-min"), help: ArgumentHelp("Per-format lowest qualities for autoquality, as avif=60,webp=70. [DARKROOM_AUTOQUALITY_FORMAT_MIN]", valueName: "FORMAT=QUALITY,...")) var autoqualityFormatMin: String?
    @Option(name: .customLong("autoquality-format-max"), help: ArgumentHelp("Per-format highest qualities for autoquality, as avif=65. [DARKROOM_AUTOQUALITY_FORMAT_MAX]", valueName: "FORMAT=QUALITY,...")) var autoqualityFormatMax: String?
    @Option(help: ArgumentHelp("Unsharp masking after a resize, as imgproxy Pro's: none (the default, as imgproxy's open-source edition), auto (after a resize that made the image smaller, unless sharpen is set) or always, with a weight (default 1) and a divider (default 24); a URL's ush overrides it. [DARKROOM_UNSHARP_MASKING_MODE, _WEIGHT, _DIVIDER]", valueName: "MODE[:WEIGHT:DIVIDER]")) var unsharpMasking: String?
    @Flag(help: "Keep 16 bits of a source that has more than 8 where the answer is PNG, TIFF, AVIF (12-bit) or JPEG XL and its steps are resizes, crops, turns, blur or sharpen (imgproxy's IMGPROXY_PRESERVE_HDR; a URL's ph overrides it). [DARKROOM_PRESERVE_HDR]") var preserveHdr = false
    @Option(help: ArgumentHelp("An encoder setting by imgproxy's name, repeatable: png_interlaced, png_quantize, png_quantization_colors (2-256), webp_effort (1-6, default 4), webp_preset, webp_compression (lossy, near_lossless, lossless), webp_smart_subsample, avif_speed (0-9, default 8), avif_subsample (auto, on, off), jxl_effort (1-9, default 4), jpeg_no_subsample, jpeg_trellis_quant, jpeg_overshoot_deringing, jpeg_optimize_scans, jpeg_quant_table (0-8). [DARKROOM_PNG_INTERLACED, DARKROOM_WEBP_EFFORT, ... each by its name]", valueName: "NAME=VALUE")) var encoder: [String] = []
    @Flag(help: "Let URLs carry imgproxy's security options (max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution, max_result_dimension). [DARKROOM_ALLOW_SECURITY_OPTIONS]") var allowSecurityOptions = false
    @Option(help: ArgumentHelp("Put before every source that does not start with it (imgproxy's BASE_URL). [DARKROOM_BASE_URL]", valueName: "URL")) var baseURL: String?
    @Option(help: ArgumentHelp("The AES key, in hex (16, 24 or 32 bytes), that /enc/ sources are encrypted with (imgproxy Pro's IMGPROXY_SOURCE_URL_ENCRYPTION_KEY); needs --key and --salt, as unsigned tokens would let a client probe the encryption. [DARKROOM_SOURCE_URL_ENCRYPTION_KEY]", valueName: "HEX")) var sourceUrlEncryptionKey: String?
    @Option(help: ArgumentHelp("Image and info requests must carry Authorization: Bearer SECRET, or are refused with 403 (imgproxy's IMGPROXY_SECRET). [DARKROOM_SECRET]", valueName: "SECRET")) var secret: String?
    @Option(help: ArgumentHelp("Source rewrites, as imgproxy's URL_REPLACEMENTS: PATTERN=REPLACEMENT;... (* within a segment, $1... in the replacement). [DARKROOM_URL_REPLACEMENTS]", valueName: "RULES")) var urlReplacements: String?

    func validate() throws {
        _ = try serverConfiguration(environment: ProcessInfo.processInfo.environment)
    }

    /// An image file the server is given (a watermark, a fallback), read
    /// off the cooperative pool and checked to be an image Darkroom reads.
    static func imageFile(at path: String, flag: String) async throws -> Data {
        let data: Data
        do {
            data = try await BlockingExecutor.shared.run { try Data(contentsOf: URL(fileURLWithPath: path)) }
        } catch {
            throw ValidationError("\(flag) \(path): cannot read it (\(error.localizedDescription))")
        }
        guard case .image = ImageFormat.sniff(data) else {
            throw ValidationError("\(flag) \(path): not an image Darkroom reads")
        }
        return data
    }

    func run() async throws {
        var configuration = try serverConfiguration(environment: ProcessInfo.processInfo.environment)
        let imgproxy = ImgproxyEnvironment(ProcessInfo.processInfo.environment)
        let environment = imgproxy.merged(into: ProcessInfo.processInfo.environment)
        if let path = watermark ?? environment["DARKROOM_WATERMARK"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.watermark = WatermarkImage(data: try await Self.imageFile(at: path, flag: "--watermark"))
        }
        if let path = fallbackImage ?? environment["DARKROOM_FALLBACK_IMAGE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.fallbackImage = try await Self.imageFile(at: path, flag: "--fallback-image")
        }
        let format = try logFormat { environment["DARKROOM_\($0)"].flatMap { $0.isEmpty ? nil : $0 } }
        var logger = format == .json ? Logger(label: "darkroom", factory: { JSONLogHandler(label: $0) }) : Logger(label: "darkroom")
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        if !imgproxy.unhonoured.isEmpty {
            logger.warning("imgproxy settings not honoured: \(imgproxy.unhonoured.joined(separator: ", "))")
        }
        if !configuration.encoder.settings.mozJPEGSettingsApply {
            logger.notice("JPEG trellis quantisation, overshoot deringing, scan optimisation and quantisation tables are mozjpeg's: this libvips is built with libjpeg-turbo and writes JPEG without them")
        }
        // Text watermarks may name only installed fonts: read them once, now.
        let fonts = FontFamilies.names
        if fonts.isEmpty {
            logger.warning("no fonts are installed: text watermarks (wmt) name only generic families, drawn by whatever fontconfig finds")
        } else {
            logger.info("text watermarks may use \(fonts.count) installed font families (\(fonts.prefix(4).joined(separator: ", "))\(fonts.count > 4 ? ", ..." : ""))")
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if TraceExport.isRequested(ProcessInfo.processInfo.environment) {
            do {
                // First in the group, so it stops last: the server's final spans are sent.
                services.append(.init(service: try TraceExport.bootstrap(environment: ProcessInfo.processInfo.environment, logger: logger)))
            } catch {
                Terminal.error("cannot start OpenTelemetry traces: \(error)")
                throw ExitCode(2)
            }
            configuration.tracing = true
            logger.notice("OpenTelemetry traces are on: every request is traced, cache hits too (they leave the event-loop shortcut)")
        }
        let app: any ApplicationProtocol
        do {
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            app = try await buildApplication(configuration, logger: logger) { port in
                // With JSON logs, standard output is left to the log lines' reader.
                if format == .text { print("Darkroom is serving the gallery at http://\(host):\(port)/ (Ctrl-C to stop)") }
            }
        } catch {
            Terminal.error("cannot start the server: \(error)")
            throw ExitCode(2)
        }
        services.append(.init(service: app))
        var groupConfiguration = ServiceGroupConfiguration(
            services: services,
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        groupConfiguration.maximumGracefulShutdownDuration = configuration.shutdownTimeout
        let group = ServiceGroup(configuration: groupConfiguration)
        try await group.run()
    }
}
