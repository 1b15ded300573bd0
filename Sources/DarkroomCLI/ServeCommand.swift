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

    @Option(help: .setting("host")) var host: String?
    @Option(help: .setting("port")) var port: Int?
    @Option(help: .setting("list")) var list: String?
    @Option(help: .setting("cache-dir")) var cacheDir: String?
    @Option(help: .setting("local-root")) var localRoot: String?
    @Option(help: .setting("key")) var key: [String] = []
    @Option(help: .setting("salt")) var salt: [String] = []
    @Option(help: .setting("signature-size")) var signatureSize: Int?
    @Option(help: .setting("allow-source")) var allowSource: [String] = []
    @Flag(help: .setting("allow-private-networks")) var allowPrivateNetworks = false
    @Option(help: .setting("source-ca")) var sourceCA: [String] = []
    @Option(help: .setting("max-source-bytes")) var maxSourceBytes: Int?
    @Option(help: .setting("max-source-pixels")) var maxSourcePixels: Int?
    @Option(help: .setting("max-result-dimension")) var maxResultDimension: Int?
    @Option(help: .setting("max-processing-seconds")) var maxProcessingSeconds: Int?
    @Flag(name: .customLong("pdf"), help: .setting("pdf")) var pdf = false
    @Option(name: .customLong("pdf-max-memory-mb"), help: .setting("pdf-max-memory-mb")) var pdfMaxMemoryMb: Int?
    @Option(name: .customLong("pdf-no-background"), help: .setting("pdf-no-background")) var pdfNoBackground: String?
    @Flag(name: .customLong("video-thumbnails"), help: .setting("video-thumbnails")) var videoThumbnails = false
    @Option(name: .customLong("video-thumbnail-second"), help: .setting("video-thumbnail-second")) var videoThumbnailSecond: String?
    @Option(name: .customLong("video-thumbnail-keyframes"), help: .setting("video-thumbnail-keyframes")) var videoThumbnailKeyframes: String?
    @Option(name: .customLong("video-thumbnail-probe-size"), help: .setting("video-thumbnail-probe-size")) var videoThumbnailProbeSize: Int?
    @Option(name: .customLong("video-max-memory-mb"), help: .setting("video-max-memory-mb")) var videoMaxMemoryMb: Int?
    @Flag(name: .customLong("svg-render"), inversion: .prefixedNo, help: .setting("svg-render")) var svgRender: Bool?
    @Flag(name: .customLong("best-format-by-default"), help: .setting("best-format-by-default")) var bestFormatByDefault = false
    @Option(name: .customLong("object-detection-size"), help: .setting("object-detection-size")) var objectDetectionSize: String?
    @Option(name: .customLong("object-detection-confidence-threshold"), help: .setting("object-detection-confidence-threshold")) var objectDetectionConfidenceThreshold: String?
    @Option(name: .customLong("object-detection-gravity-mode"), help: .setting("object-detection-gravity-mode")) var objectDetectionGravityMode: String?
    @Option(name: .customLong("object-detection-fallback-to-smart-crop"), help: .setting("object-detection-fallback-to-smart-crop")) var objectDetectionFallbackToSmartCrop: String?
    @Option(name: .customLong("best-format-complexity-threshold"), help: .setting("best-format-complexity-threshold")) var bestFormatComplexityThreshold: String?
    @Option(name: .customLong("best-format-max-resolution"), help: .setting("best-format-max-resolution")) var bestFormatMaxResolution: String?
    @Flag(name: .customLong("always-rasterize-svg"), help: .setting("always-rasterize-svg")) var alwaysRasterizeSVG = false
    @Option(name: .customLong("sanitize-svg"), help: .setting("sanitize-svg")) var sanitizeSVG: String?
    @Flag(name: .customLong("jpeg-xl"), help: .setting("jpeg-xl")) var jpegXL = false
    @Option(help: .setting("max-animation-frames")) var maxAnimationFrames: Int?
    @Option(help: .setting("max-animation-frame-resolution")) var maxAnimationFrameResolution: String?
    @Option(help: .setting("skip-processing-formats")) var skipProcessingFormats: String?
    @Option(name: .customLong("max-jpeg-scans"), help: .setting("max-jpeg-scans")) var maxJPEGScans: Int?
    @Option(name: .customLong("max-heif-tiles"), help: .setting("max-heif-tiles")) var maxHEIFTiles: Int?
    @Option(help: .setting("max-source-frames")) var maxSourceFrames: Int?
    @Option(help: .setting("max-request-memory-mb")) var maxRequestMemoryMb: Int?
    @Option(help: .setting("download-timeout")) var downloadTimeout: Int?
    @Option(help: .setting("cache-max-age")) var cacheMaxAge: Int?
    @Flag(help: .setting("client-hints")) var clientHints = false
    @Flag(help: .setting("cookie-passthrough")) var cookiePassthrough = false
    @Option(help: .setting("request-headers-passthrough")) var requestHeadersPassthrough: String?
    @Flag(help: .setting("cookie-passthrough-all")) var cookiePassthroughAll = false
    @Option(help: .setting("cookie-base-url")) var cookieBaseUrl: String?
    @Flag(help: .setting("cache-control-passthrough")) var cacheControlPassthrough = false
    @Option(help: .setting("max-waiting")) var maxWaiting: Int?
    @Option(help: .setting("keep-alive-timeout")) var keepAliveTimeout: Int?
    @Option(help: .setting("read-request-timeout")) var readRequestTimeout: Int?
    @Option(help: .setting("max-connections")) var maxConnections: Int?
    @Option(help: .setting("max-connections-per-client")) var maxConnectionsPerClient: Int?
    @Option(help: .setting("shutdown-timeout")) var shutdownTimeout: Int?
    @Option(help: .setting("book-lifetime")) var bookLifetime: Int?
    @Option(help: .setting("memory-cache-mb")) var memoryCacheMb: Int?
    @Option(help: .setting("workers")) var workers: Int?
    @Option(help: .setting("source-min-uses")) var sourceMinUses: Int?
    @Flag(help: .setting("access-log")) var accessLog = false
    @Option(help: .setting("log-format")) var logFormat: String?
    @Flag(inversion: .prefixedNo, help: .setting("last-modified")) var lastModified: Bool?
    @Option(help: .setting("user-agent")) var userAgent: String?
    @Option(help: .setting("max-redirects")) var maxRedirects: Int?
    @Option(help: .setting("allow-origin")) var allowOrigin: String?
    @Option(help: .setting("server-name")) var serverName: String?
    @Option(help: .setting("path-prefix")) var pathPrefix: String?
    @Option(help: .setting("metrics-bind")) var metricsBind: String?
    @Option(help: .setting("result-cache")) var resultCache: String?
    @Option(help: .setting("result-cache-timeout")) var resultCacheTimeout: Int?
    @Option(help: .setting("s3-endpoint")) var s3Endpoint: String?
    @Flag(help: .setting("source-cache")) var sourceCache = false
    @Option(help: .setting("s3-sources")) var s3Sources: String?
    @Option(help: .setting("s3-denied-buckets")) var s3DeniedBuckets: String?
    @Option(help: .setting("preferred-formats")) var preferredFormats: String?
    @Flag(help: .setting("debug-headers")) var debugHeaders = false
    @Flag(help: .setting("canonical-header")) var canonicalHeader = false
    @Flag(help: .setting("return-attachment")) var returnAttachment = false
    @Flag(help: .setting("enforce-thumbnail")) var enforceThumbnail = false
    @Option(help: .setting("preset")) var preset: [String] = []
    @Option(help: .setting("watermark")) var watermark: String?
    @Option(help: .setting("fallback-image")) var fallbackImage: String?
    @Option(help: .setting("watermark-url")) var watermarkUrl: String?
    @Option(help: .setting("watermark-opacity")) var watermarkOpacity: Double?
    @Option(help: .setting("fallback-image-url")) var fallbackImageUrl: String?
    @Option(help: .setting("fallback-image-http-code")) var fallbackImageHttpCode: Int?
    @Option(help: .setting("fallback-image-ttl")) var fallbackImageTtl: Int?
    @Option(help: .setting("custom-response-header")) var customResponseHeader: [String] = []
    @Option(help: .setting("response-headers-passthrough")) var responseHeadersPassthrough: String?
    @Option(help: .setting("custom-request-header")) var customRequestHeader: [String] = []
    @Option(help: .setting("info-preset")) var infoPreset: [String] = []
    @Flag(help: .setting("allow-bypass-cache")) var allowBypassCache = false
    @Option(help: .setting("color-profiles-dir")) var colorProfilesDir: String?
    @Option(help: .setting("max-chained-pipelines")) var maxChainedPipelines: Int?
    @Option(help: .setting("cache-tags-format")) var cacheTagsFormat: String?
    @Flag(help: .setting("info-gps")) var infoGps = false
    @Flag(help: .setting("only-presets")) var onlyPresets = false
    @Option(help: .setting("quality")) var quality: Int?
    @Option(help: .setting("format-quality")) var formatQuality: String?
    @Flag(help: .setting("jpeg-progressive")) var jpegProgressive = false
    @Option(help: .setting("autoquality")) var autoquality: String?
    @Option(name: .customLong("autoquality-format-min"), help: .setting("autoquality-format-min")) var autoqualityFormatMin: String?
    @Option(name: .customLong("autoquality-format-max"), help: .setting("autoquality-format-max")) var autoqualityFormatMax: String?
    @Option(help: .setting("unsharp-masking")) var unsharpMasking: String?
    @Flag(help: .setting("preserve-hdr")) var preserveHdr = false
    @Option(help: .setting("encoder")) var encoder: [String] = []
    @Flag(help: .setting("allow-security-options")) var allowSecurityOptions = false
    @Option(help: .setting("base-url")) var baseURL: String?
    @Option(help: .setting("source-url-encryption-key")) var sourceUrlEncryptionKey: String?
    @Option(help: .setting("secret")) var secret: String?
    @Option(help: .setting("url-replacements")) var urlReplacements: String?

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
