public import Darkroom
public import Foundation
import NIOCore

/// Everything `darkroom serve` can be told, by flags or `DARKROOM_*`
/// environment variables.
public struct ServerConfiguration: Sendable {
    public var host = "127.0.0.1"
    /// 0: any free port.
    public var port = 8080
    /// The gallery's photo list (a file or an http(s) URL); nil: the bundled
    /// sample list, served from the bundled sample photos.
    public var list: String?
    /// The folder `local:///PATH` sources are read from (imgproxy's local
    /// file system root); nil: the bundled samples when no list is given,
    /// else local sources are refused.
    public var localRoot: URL?
    /// The disk cache's folder; nil: `$XDG_CACHE_HOME/darkroom` or `~/.cache/darkroom`.
    public var cacheFolder: URL?
    /// When not empty, image URLs must carry imgproxy's signature by one
    /// of these key and salt pairs (several while keys are rotated).
    public var signatures: [URLSignature] = []
    /// Which formats the Accept header chooses (imgproxy's `AUTO_*` and
    /// `ENFORCE_*` switches); AVIF and WebP for a URL without a format by
    /// default.
    public var negotiation = FormatNegotiation()
    /// The secret image and info requests must carry as `Authorization:
    /// Bearer SECRET` (imgproxy's `IMGPROXY_SECRET`); none by default.
    public var secret = ServerSecret()
    /// The one signing pair, when there is one.
    public var signature: URLSignature? {
        get { signatures.first }
        set { signatures = newValue.map { [$0] } ?? [] }
    }
    /// Source URL prefixes that may be fetched; empty: any public address.
    public var allowedSources: [String] = []
    /// Fetch from loopback and private addresses too (a server inside a
    /// private network that serves its own origins).
    public var allowPrivateNetworks = false
    /// PEM files of certificate authorities trusted for HTTPS sources,
    /// besides the system's.
    public var sourceCertificateAuthorities: [String] = []
    /// URL prefixes exempt from the private-address check, such as an origin
    /// on the same host.
    public var trustedOrigins: [String] = []
    public var limits = ImageLimits()
    public var downloadTimeout: Duration = .seconds(30)
    /// max-age of Cache-Control on images, in seconds: one year.
    public var cacheMaxAge = 31_536_000
    /// The origin's `Cache-Control` (else its `Expires`, as a max-age) on
    /// images in place of ``cacheMaxAge``, where it sent one (imgproxy's
    /// `IMGPROXY_CACHE_CONTROL_PASSTHROUGH`).
    public var cacheControlPassthrough = false
    /// Read `DPR`, `Width` and their `Sec-CH-` forms as defaults for a URL's
    /// `dpr` and width, and name them in `Vary` (imgproxy's
    /// `IMGPROXY_ENABLE_CLIENT_HINTS`).
    public var clientHints = false
    /// Render SVG sources asked without a format, as other sources are,
    /// instead of answering them as SVG (imgproxy's
    /// `IMGPROXY_ALWAYS_RASTERIZE_SVG`); needs ``ImageLimits/svgRendering``.
    public var alwaysRasterizeSVG = false
    /// imgproxy Pro's `best` format for every URL that names no format
    /// (`IMGPROXY_BEST_FORMAT_BY_DEFAULT`).
    public var bestFormatByDefault = false
    /// Below this complexity `best` tries lossless encodings
    /// (`IMGPROXY_BEST_FORMAT_COMPLEXITY_THRESHOLD`, 5.5).
    public var bestFormatComplexityThreshold = 5.5
    /// How faces are looked for (imgproxy Pro's
    /// `IMGPROXY_OBJECT_DETECTION_*`), by the options that use them.
    public var objectDetection = ObjectDetection()
    /// Above this many pixels `best` writes one format without trying the
    /// others; 0: never (`IMGPROXY_BEST_FORMAT_MAX_RESOLUTION`, in megapixels there).
    public var bestFormatMaxPixels = 0
    /// A client's cookies sent on to its sources, and to which
    /// (imgproxy's `IMGPROXY_COOKIE_PASSTHROUGH`); nil: none are.
    public var cookiePassthrough: CookiePassthrough?
    /// Header fields of a client's request sent on to its sources, by
    /// lower-case name (imgproxy Pro's `IMGPROXY_REQUEST_HEADERS_PASSTHROUGH`).
    public var requestHeadersPassthrough: [String] = []

    /// Names that are the connection's or the loader's own, never passed on.
    public static let unpassableHeaders: Set<String> = [
        "host", "connection", "content-length", "transfer-encoding", "upgrade", "te", "trailer", "keep-alive", "expect",
        "proxy-authorization", "proxy-connection", "if-none-match", "if-modified-since", "cookie",
    ]
    /// New work is refused with 429 while more than this many processing
    /// runs wait; cache hits are still served.
    public var maxWaitingFiltrations = 64
    /// Named option strings for `pr:`, such as `thumb` -> `rs:fill:300:300/sepia:0.8`;
    /// the one named `default` applies to every URL. Checked at start.
    public var presets: [String: String] = [:]
    /// The image `wm:` lays over results (`--watermark FILE`); nil: `wm:`
    /// is no step (unless `wmt` or `wmu` give it a mark), as imgproxy skips it.
    public var watermark: WatermarkImage?
    /// An image fetched as sources are (the same allow-list and limits),
    /// laid by `wm:` where no `wmt` or `wmu` says otherwise, over
    /// ``watermark`` (imgproxy's `IMGPROXY_WATERMARK_URL`).
    public var watermarkURL: URL?
    /// Multiplies every `wm:` opacity, 0...1 (imgproxy's
    /// `IMGPROXY_WATERMARK_OPACITY`).
    public var watermarkOpacity = 1.0
    /// A fallback image fetched as sources are, over ``fallbackImage``
    /// (imgproxy's `IMGPROXY_FALLBACK_IMAGE_URL`); a URL's `fiu` is over both.
    public var fallbackImageURL: URL?
    /// Header fields added to every image answer (imgproxy Pro's
    /// `IMGPROXY_CUSTOM_RESPONSE_HEADERS`).
    public var customResponseHeaders: [PassedHeader] = []
    /// Header fields sent with every source request (imgproxy Pro's
    /// `IMGPROXY_CUSTOM_REQUEST_HEADERS`).
    public var customRequestHeaders: [PassedHeader] = []
    /// The origin's header fields passed on to image answers, lowercased
    /// (imgproxy Pro's `IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH`): kept with
    /// the source and the result in every cache, so hits carry them too.
    public var responseHeadersPassthrough: [String] = []
    /// Presets for `/info` URLs (imgproxy Pro's `IMGPROXY_INFO_PRESETS`);
    /// nil: `/info` uses ``presets``.
    public var infoPresets: [String: String]?
    /// Answered, processed with the URL's options, in place of a source
    /// that cannot be had (`--fallback-image FILE`): not found, failing,
    /// not an image, damaged. The answer says the source's own status in
    /// `Darkroom-Source-Status`.
    public var fallbackImage: Data?
    /// A fallback answer's status (imgproxy's `IMGPROXY_FALLBACK_IMAGE_HTTP_CODE`,
    /// 200); 0: the status the source's error has.
    public var fallbackImageStatus = 200
    /// A fallback answer's `max-age` in seconds (imgproxy's
    /// `IMGPROXY_FALLBACK_IMAGE_TTL`); nil or 0: ``cacheMaxAge``, as imgproxy's.
    public var fallbackImageTTL: Int?
    /// `/info` answers include a photo's GPS position when its EXIF has one
    /// (`--info-gps`); off by default, since it says where someone was.
    public var infoIncludesGPS = false
    /// Image URLs name presets only, in one segment (`/img/SIG/thumb:sepia/plain/...`),
    /// as imgproxy's presets-only mode.
    public var onlyPresets = false
    /// The security options (`msr`, `msfs`, `maf`, `mafr`, `mrd`) taken
    /// from URLs (imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS`).
    public var allowSecurityOptions = false
    /// URLs may carry `bc` (imgproxy Pro's `IMGPROXY_ALLOW_BYPASS_CACHE`):
    /// each such request fetches and processes anew, so off by default.
    public var allowBypassCache = false
    /// The most chained pipelines a URL may have (imgproxy Pro's
    /// `IMGPROXY_MAX_CHAINED_PIPELINES`); 0: Darkroom's most,
    /// ``ImageURLOptions/maxPipelines``.
    public var maxChainedPipelines = 0
    /// The ICC profiles a URL's `cp` may name, by file name (with and
    /// without `.icc` or `.icm`), read from a folder at start (imgproxy
    /// Pro's `IMGPROXY_COLOR_PROFILES_DIR`, `/usr/share/color/icc` by
    /// default, where Debian's `icc-profiles-free` puts them).
    public var colourProfiles: [String: String] = [:]
    /// Which header fields carry a URL's `ct` tags (imgproxy Pro's
    /// `IMGPROXY_CACHE_TAGS_FORMAT`).
    public var cacheTagsFormat = CacheTagsFormat.all

    /// The CDNs' fields for cache tags.
    public enum CacheTagsFormat: String, Sendable, CaseIterable {
        /// Every format's field.
        case all
        /// `x-amz-meta-cache-tag`, CloudFront's.
        case cloudfront
        /// `Cache-Tag`, Cloudflare's.
        case cloudflare
        case none

        /// The fields for `tags`, comma-separated.
        public func fields(_ tags: [String]) -> [PassedHeader] {
            guard !tags.isEmpty else { return [] }
            let value = tags.joined(separator: ",")
            return switch self {
            case .all: [PassedHeader(name: "x-amz-meta-cache-tag", value: value), PassedHeader(name: "Cache-Tag", value: value)]
            case .cloudfront: [PassedHeader(name: "x-amz-meta-cache-tag", value: value)]
            case .cloudflare: [PassedHeader(name: "Cache-Tag", value: value)]
            case .none: []
            }
        }
    }
    /// When set, the only options URLs may name (presets may name any), as
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`.
    public var allowedOptions: Set<String>?
    /// When set, the only info options `/info` URLs may name, as
    /// `IMGPROXY_ALLOWED_INFO_OPTIONS`.
    public var allowedInfoOptions: Set<String>?
    /// How sources are rewritten (imgproxy's URL replacements, base URL,
    /// base64 file names).
    public var sourceRules = SourceRules()
    /// Quality and the like where a URL does not say.
    public var encoder = ImageURLOptions.EncoderDefaults()
    /// Processing threads (`--workers`); one per core by default.
    public var filtrationConcurrency = ProcessInfo.processInfo.activeProcessorCount
    /// The memory cache's size in bytes; nil: a share of the machine
    /// (``ImagePipeline/Configuration/defaultMemoryCacheBytes``).
    public var memoryCacheBytes: Int?
    /// Versions asked of a source before it is kept on disk
    /// (`--source-min-uses`, as nginx's `proxy_cache_min_uses`); 2 by
    /// default, so that a source asked in one version only costs no disk
    /// write, while the latest sources wait in memory for a second version.
    /// Results are always kept.
    public var sourceMinUses = 2
    /// Log every request at info level (off: a busy server's log stays
    /// readable, and the hit path stays cheap).
    public var accessLog = false
    /// Image answers carry the source's `Last-Modified` and honour
    /// `If-Modified-Since`, as imgproxy 4 does by default
    /// (`IMGPROXY_USE_LAST_MODIFIED`).
    public var usesLastModified = true
    /// The `User-Agent` sources are asked with (imgproxy's
    /// `IMGPROXY_USER_AGENT`; its `%current_version` is Darkroom's version).
    public var userAgent = DataLoader.Configuration.defaultUserAgent
    /// How many redirects a source may take, each hop checked again
    /// (imgproxy's `IMGPROXY_MAX_REDIRECTS`).
    public var maxRedirects = DataLoader.Configuration().maxRedirects
    /// `Access-Control-Allow-Origin` for image answers (and an answer to
    /// the browser's OPTIONS preflight), as imgproxy's `IMGPROXY_ALLOW_ORIGIN`;
    /// nil: no CORS headers.
    public var allowOrigin: String?
    /// With no format in the URL (and none chosen by Accept), imgproxy's
    /// preferred formats choose the answer's (`IMGPROXY_PREFERRED_FORMATS`,
    /// see ``OutputOptions/preferredFormats``); nil: Darkroom's own rule.
    public var preferredFormats: [ImageFormat]?
    /// imgproxy's debug fields on image answers (`IMGPROXY_ENABLE_DEBUG_HEADERS`):
    /// the source's length and size and the answer's size.
    public var debugHeaders = false
    /// `Link: <source>; rel="canonical"` on answers of http and https
    /// sources, as imgproxy's `IMGPROXY_SET_CANONICAL_HEADER`; never for an
    /// encrypted source, which no answer may show.
    public var canonicalHeader = false
    /// Answers are attachments unless a URL's `att:0` says otherwise
    /// (imgproxy's `IMGPROXY_RETURN_ATTACHMENT`).
    public var returnAttachment = false
    /// HEIC and AVIF sources are read by their embedded thumbnail unless a
    /// URL's `eth:0` says otherwise (imgproxy's `IMGPROXY_ENFORCE_THUMBNAIL`).
    public var enforceThumbnail = false
    /// Every answer's `Server` field (imgproxy's `IMGPROXY_SERVER_NAME`).
    public var serverName = "darkroom"
    /// Where image URLs are served besides `/img/`: at the root (imgproxy's
    /// default), or under a path prefix.
    public var imagePaths = ImagePaths.root
    /// A server span for every request, with the pipeline's spans under it,
    /// to the tracer bootstrapped in the process (`serve` bootstraps
    /// OpenTelemetry when `OTEL_EXPORTER_OTLP_ENDPOINT` is set). Memory-cache
    /// hits then go through the router too, so each has its span.
    public var tracing = false
    public var downloadConcurrency = 6
    /// How long in-flight requests may take to finish after SIGINT or SIGTERM.
    public var shutdownTimeout: Duration = .seconds(10)
    /// How long a finished photobook stays downloadable.
    public var bookLifetime: Duration = .seconds(3600)
    /// The result cache shared by replicas (`--result-cache s3://...`); nil:
    /// each replica keeps its own results only.
    public var sharedCache: SharedResultCache.Configuration?
    /// `s3://BUCKET/KEY` sources from these buckets (`--s3-sources`); nil:
    /// none.
    public var s3Sources: S3SourceLoader.Configuration?
    /// Watch cgroup memory pressure and shed cache and waiting work under it.
    public var watchMemoryPressure = true
    /// How long a connection may wait idle between requests, and take to
    /// send a request once its first byte came: imgproxy's
    /// `IMGPROXY_KEEP_ALIVE_TIMEOUT` and `IMGPROXY_READ_REQUEST_TIMEOUT`,
    /// 10 s each by default.
    public var keepAliveTimeout: Duration = .seconds(10)
    public var readRequestTimeout: Duration = .seconds(10)
    /// The longest request target, path and query, in bytes: 16 KiB (a
    /// long signed source URL in base64 fits; nginx's default buffers take
    /// 8 KB). Longer is a 414, before the URL is parsed or kept anywhere.
    public var maxRequestTarget = 16_384
    /// Connections held in all and from one address (see ``ConnectionLimits``).
    public var connections = ConnectionLimits.Configuration()
    /// Where `/metrics` is served instead of the main address
    /// (`--metrics-bind HOST:PORT`), so that it can be kept off the public
    /// port; nil: on the main address. Port 0: any free one.
    public var metricsAddress: (host: String, port: Int)?

    var connectionTimeouts: ConnectionTimer.Timeouts {
        func amount(_ duration: Duration) -> TimeAmount {
            .nanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
        }
        return .init(keepAlive: amount(keepAliveTimeout), readRequest: amount(readRequestTimeout), maxRequestTarget: maxRequestTarget)
    }

    public init() {}
}
