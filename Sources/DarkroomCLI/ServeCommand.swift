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
    @Option(help: "A source URL prefix that may be fetched; repeatable. [DARKROOM_ALLOW_SOURCE]") var allowSource: [String] = []
    @Flag(help: "Also fetch from loopback and private addresses. [DARKROOM_ALLOW_PRIVATE_NETWORKS]") var allowPrivateNetworks = false
    @Option(help: ArgumentHelp("A PEM file of certificate authorities trusted for HTTPS sources, besides the system's; repeatable. [DARKROOM_SOURCE_CA]", valueName: "FILE")) var sourceCA: [String] = []
    @Option(help: "Largest source, in bytes. [DARKROOM_MAX_SOURCE_BYTES]") var maxSourceBytes: Int?
    @Option(help: "Largest source, in pixels. [DARKROOM_MAX_SOURCE_PIXELS]") var maxSourcePixels: Int?
    @Option(help: "Largest width or height of a result, in pixels (default 8192). [DARKROOM_MAX_RESULT_DIMENSION]") var maxResultDimension: Int?
    @Option(help: "Seconds one image's processing may take before it is stopped (default 20). [DARKROOM_MAX_PROCESSING_SECONDS]") var maxProcessingSeconds: Int?
    @Flag(name: .customLong("jpeg-xl"), help: "Read JPEG XL sources and write JPEG XL answers (f:jxl); off by default, as libvips marks its JPEG XL codec untrusted. [DARKROOM_JPEG_XL]") var jpegXL = false
    @Option(help: "Frames of an animated GIF or WebP answered, from the first (default 100; 1 answers a still image). [DARKROOM_MAX_ANIMATION_FRAMES]") var maxAnimationFrames: Int?
    @Option(name: .customLong("max-jpeg-scans"), help: "Scans a progressive JPEG may have, 1 to 10000 (default 100; encoders write at most a few dozen): libjpeg reads them all before the first row. [DARKROOM_MAX_JPEG_SCANS]") var maxJPEGScans: Int?
    @Option(name: .customLong("max-heif-tiles"), help: "Tiles a HEIF or AVIF image's grid may have decoded, counted from the file before any decoder runs, 1 to 10000 (default 256; an iPhone's 48 MP HEIC has 192). [DARKROOM_MAX_HEIF_TILES]") var maxHEIFTiles: Int?
    @Option(help: "Frames an animated GIF or WebP may hold, counted from the file before any decoder runs, 1 to 1000000 (default 10000; --max-animation-frames says how many of them are answered). [DARKROOM_MAX_SOURCE_FRAMES]") var maxSourceFrames: Int?
    @Option(help: "Memory one request may hold, in MiB: its decode, the steps that keep it whole and the encoder, estimated before anything is allocated (default: a quarter of the cgroup's memory limit, 64 to 256; 256 without one). [DARKROOM_MAX_REQUEST_MEMORY_MB]") var maxRequestMemoryMb: Int?
    @Option(help: "Seconds a download may take. [DARKROOM_DOWNLOAD_TIMEOUT]") var downloadTimeout: Int?
    @Option(help: "max-age of images' Cache-Control, in seconds. [DARKROOM_CACHE_MAX_AGE]") var cacheMaxAge: Int?
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
    @Flag(help: "Include a photo's GPS position in /info answers when its EXIF has one. [DARKROOM_INFO_GPS]") var infoGps = false
    @Flag(help: "Image URLs name presets only, in one segment (/img/SIG/thumb:sepia/plain/...). [DARKROOM_ONLY_PRESETS]") var onlyPresets = false
    @Option(help: "Quality of lossy answers a URL's q does not set, 1 to 100 (default 80). [DARKROOM_QUALITY]") var quality: Int?
    @Option(help: ArgumentHelp("Quality per output format, over --quality (default webp=79,avif=63,jxl=77, as imgproxy). [DARKROOM_FORMAT_QUALITY]", valueName: "FORMAT=Q,...")) var formatQuality: String?
    @Flag(help: "Write progressive JPEG answers. [DARKROOM_JPEG_PROGRESSIVE]") var jpegProgressive = false
    @Flag(help: "Let URLs carry imgproxy's security options (max_src_resolution, max_src_file_size, max_animation_frames, max_animation_frame_resolution, max_result_dimension). [DARKROOM_ALLOW_SECURITY_OPTIONS]") var allowSecurityOptions = false
    @Option(help: ArgumentHelp("Put before every source that does not start with it (imgproxy's BASE_URL). [DARKROOM_BASE_URL]", valueName: "URL")) var baseURL: String?
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

    /// The key and salt pairs, from flags or comma-separated variables.
    private func signatures(env: (String) -> String?) throws -> [URLSignature] {
        func list(_ flags: [String], _ name: String) -> [String] {
            flags.isEmpty ? (env(name)?.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) } ?? []) : flags
        }
        let keys = list(key, "KEY"), salts = list(salt, "SALT")
        guard !keys.isEmpty || !salts.isEmpty else {
            if signatureSize != nil || env("SIGNATURE_SIZE") != nil { throw ValidationError("--signature-size needs --key") }
            return []
        }
        // One salt may serve every key; otherwise they pair in order.
        guard !keys.isEmpty, salts.count <= 1 || salts.count == keys.count else {
            throw ValidationError("--key and --salt pair in order: \(keys.count) key(s), \(salts.count) salt(s)")
        }
        var size = 32
        if let text = signatureSize.map(String.init) ?? env("SIGNATURE_SIZE") {
            guard let value = Int(text), (1...32).contains(value) else { throw ValidationError("--signature-size \(text): expected 1 to 32 bytes") }
            size = value
        }
        return try keys.enumerated().map { index, key in
            do {
                return try URLSignature(hexKey: key, hexSalt: salts.count == keys.count ? salts[index] : salts.first ?? "", size: size)
            } catch {
                throw ValidationError("--key/--salt (pair \(index + 1)): \(error)")
            }
        }
    }

    /// The configuration from flags, then `DARKROOM_*` variables, then defaults.
    func serverConfiguration(environment original: [String: String]) throws -> ServerConfiguration {
        let environment = ImgproxyEnvironment(original).merged(into: original)
        func env(_ name: String) -> String? { environment["DARKROOM_\(name)"].flatMap { $0.isEmpty ? nil : $0 } }
        func envFlag(_ name: String) -> Bool { ["1", "true", "yes"].contains(env(name)?.lowercased() ?? "") }
        /// The flag, else `DARKROOM_NAME`, at least `minimum`; over
        /// `maximum`, refused naming the flag, whichever gave it.
        func number(_ flag: Int?, _ name: String, _ option: String, minimum: Int = 0, maximum: Int = .max) throws -> Int? {
            let value: Int
            if let flag {
                guard flag >= minimum else { throw ValidationError("--\(option) must be at least \(minimum)") }
                value = flag
            } else {
                guard let text = env(name) else { return nil }
                guard let number = Int(text), number >= minimum else { throw ValidationError("DARKROOM_\(name)=\(text): expected a whole number of at least \(minimum)") }
                value = number
            }
            guard value <= maximum else { throw ValidationError("--\(option) \(value) is over \(maximum)") }
            return value
        }
        var c = ServerConfiguration()
        c.host = host ?? env("HOST") ?? c.host
        if let port = try number(port, "PORT", "port") {
            guard port <= 65_535 else { throw ValidationError("--port \(port) is not a port (0...65535)") }
            c.port = port
        }
        c.list = list ?? env("LIST")
        if let folder = cacheDir ?? env("CACHE_DIR") { c.cacheFolder = URL(fileURLWithPath: folder) }
        if let folder = localRoot ?? env("LOCAL_ROOT") {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--local-root \(folder) is not a folder")
            }
            c.localRoot = URL(fileURLWithPath: folder)
        }
        c.signatures = try signatures(env: env)
        c.allowedSources = allowSource.isEmpty ? (env("ALLOW_SOURCE")?.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) } ?? []) : allowSource
        c.allowPrivateNetworks = allowPrivateNetworks || envFlag("ALLOW_PRIVATE_NETWORKS")
        c.sourceCertificateAuthorities = sourceCA.isEmpty ? (env("SOURCE_CA")?.split(separator: ",").map(String.init) ?? []) : sourceCA
        for file in c.sourceCertificateAuthorities where !FileManager.default.isReadableFile(atPath: file) {
            throw ValidationError("--source-ca \(file) cannot be read")
        }
        if let bytes = try number(maxSourceBytes, "MAX_SOURCE_BYTES", "max-source-bytes", minimum: 1) { c.limits.maxSourceBytes = bytes }
        if let pixels = try number(maxSourcePixels, "MAX_SOURCE_PIXELS", "max-source-pixels", minimum: 1) { c.limits.maxSourcePixels = pixels }
        if let side = try number(maxResultDimension, "MAX_RESULT_DIMENSION", "max-result-dimension", minimum: 1, maximum: 100_000) {
            c.limits.maxResultDimension = side
        }
        if let seconds = try number(maxProcessingSeconds, "MAX_PROCESSING_SECONDS", "max-processing-seconds", minimum: 1, maximum: 3600) {
            c.limits.maxProcessingTime = .seconds(seconds)
        }
        if let frames = try number(maxAnimationFrames, "MAX_ANIMATION_FRAMES", "max-animation-frames", minimum: 1, maximum: 10_000) {
            c.limits.maxAnimationFrames = frames
        }
        if let scans = try number(maxJPEGScans, "MAX_JPEG_SCANS", "max-jpeg-scans", minimum: 1, maximum: 10_000) {
            c.limits.maxJPEGScans = scans
        }
        if let tiles = try number(maxHEIFTiles, "MAX_HEIF_TILES", "max-heif-tiles", minimum: 1, maximum: 10_000) {
            c.limits.maxHEIFTiles = tiles
        }
        if let frames = try number(maxSourceFrames, "MAX_SOURCE_FRAMES", "max-source-frames", minimum: 1, maximum: 1_000_000) {
            c.limits.maxSourceFrames = frames
        }
        if let megabytes = try number(maxRequestMemoryMb, "MAX_REQUEST_MEMORY_MB", "max-request-memory-mb", minimum: 16, maximum: 65_536) {
            c.limits.maxDecodeMemory = megabytes << 20
        }
        c.limits.jpegXL = jpegXL || envFlag("JPEG_XL")
        if let seconds = try number(downloadTimeout, "DOWNLOAD_TIMEOUT", "download-timeout", minimum: 1) { c.downloadTimeout = .seconds(seconds) }
        if let age = try number(cacheMaxAge, "CACHE_MAX_AGE", "cache-max-age") { c.cacheMaxAge = age }
        if let waiting = try number(maxWaiting, "MAX_WAITING", "max-waiting") { c.maxWaitingFiltrations = waiting }
        if let seconds = try number(keepAliveTimeout, "KEEP_ALIVE_TIMEOUT", "keep-alive-timeout", minimum: 1, maximum: 3600) {
            c.keepAliveTimeout = .seconds(seconds)
        }
        if let seconds = try number(readRequestTimeout, "READ_REQUEST_TIMEOUT", "read-request-timeout", minimum: 1, maximum: 3600) {
            c.readRequestTimeout = .seconds(seconds)
        }
        if let connections = try number(maxConnections, "MAX_CONNECTIONS", "max-connections", minimum: 1, maximum: 1_000_000) {
            c.connections.maxConnections = connections
        }
        if let connections = try number(maxConnectionsPerClient, "MAX_CONNECTIONS_PER_CLIENT", "max-connections-per-client", maximum: 1_000_000) {
            c.connections.maxPerClient = connections
        }
        if let seconds = try number(shutdownTimeout, "SHUTDOWN_TIMEOUT", "shutdown-timeout") { c.shutdownTimeout = .seconds(seconds) }
        if let seconds = try number(bookLifetime, "BOOK_LIFETIME", "book-lifetime", minimum: 1) { c.bookLifetime = .seconds(seconds) }
        if let megabytes = try number(memoryCacheMb, "MEMORY_CACHE_MB", "memory-cache-mb") {
            guard megabytes <= 1 << 20 else { throw ValidationError("--memory-cache-mb \(megabytes) is over 1048576 (1 TiB)") }
            c.memoryCacheBytes = megabytes << 20
        }
        if let threads = try number(workers, "WORKERS", "workers", minimum: 1, maximum: 256) {
            c.filtrationConcurrency = threads
        }
        if let uses = try number(sourceMinUses, "SOURCE_MIN_USES", "source-min-uses", minimum: 1, maximum: 1000) {
            c.sourceMinUses = uses
        }
        let endpoint = s3Endpoint ?? env("S3_ENDPOINT")
        if let text = resultCache ?? env("RESULT_CACHE") {
            c.sharedCache = try Self.sharedCache(text, endpoint: endpoint, environment: environment)
            c.sharedCache?.storesSources = sourceCache || envFlag("SOURCE_CACHE")
            if let seconds = try number(resultCacheTimeout, "RESULT_CACHE_TIMEOUT", "result-cache-timeout", minimum: 1, maximum: 3600) {
                c.sharedCache?.client.timeout = .seconds(seconds)
            }
        } else if sourceCache {
            throw ValidationError("--source-cache needs --result-cache")
        } else if resultCacheTimeout != nil {
            throw ValidationError("--result-cache-timeout needs --result-cache")
        }
        if let text = s3Sources ?? env("S3_SOURCES") {
            let buckets = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
            guard !buckets.isEmpty else { throw ValidationError("--s3-sources: name the buckets (or * for any)") }
            for bucket in buckets where bucket != "*" && !S3Location.isBucketName(bucket) {
                throw ValidationError("--s3-sources: \"\(bucket)\" is not a bucket name (3 to 63 of a-z, 0-9, '.', '-')")
            }
            let (url, credentials) = try S3Store.resolve(endpoint: endpoint, environment: environment, flag: "--s3-sources")
            c.s3Sources = S3SourceLoader.Configuration(endpoint: url, credentials: credentials, allowedBuckets: buckets)
        }
        if s3Endpoint != nil, c.sharedCache == nil, c.s3Sources == nil {
            throw ValidationError("--s3-endpoint needs --result-cache or --s3-sources")
        }
        c.accessLog = accessLog || envFlag("ACCESS_LOG")
        if let lastModified {
            c.usesLastModified = lastModified
        } else if let text = env("USE_LAST_MODIFIED") {
            guard let value = ["true": true, "1": true, "yes": true, "false": false, "0": false, "no": false][text.lowercased()] else {
                throw ValidationError("DARKROOM_USE_LAST_MODIFIED \(text): expected true or false")
            }
            c.usesLastModified = value
        }
        if let origin = allowOrigin ?? env("ALLOW_ORIGIN") {
            // A header's value: visible ASCII, as `*` or an origin is.
            guard origin.utf8.count <= 256, origin.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw ValidationError("--allow-origin \(origin): expected * or an origin such as https://example.com")
            }
            c.allowOrigin = origin
        }
        if let text = pathPrefix ?? env("PATH_PREFIX") {
            do {
                c.imagePaths = try ImagePaths(prefix: text)
            } catch {
                throw ValidationError("--path-prefix: \(error)")
            }
        }
        if let text = metricsBind ?? env("METRICS_BIND") { c.metricsAddress = try Self.address(text, flag: "--metrics-bind") }
        _ = try logFormat(env: env)
        let presets = preset.isEmpty ? (env("PRESET")?.split(separator: ",").map(String.init) ?? []) : preset
        for entry in presets {
            let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw ValidationError("--preset \(entry): expected NAME=OPTIONS") }
            c.presets[parts[0]] = parts[1]
        }
        c.onlyPresets = onlyPresets || envFlag("ONLY_PRESETS")
        c.infoIncludesGPS = infoGps || envFlag("INFO_GPS")
        if c.onlyPresets, c.presets.isEmpty { throw ValidationError("--only-presets needs at least one --preset") }
        try readImgproxySettings(into: &c, env: env, envFlag: envFlag)
        return c
    }

    /// The settings imgproxy has under the same names: the encoder's
    /// defaults, the security options, the source rewrites and the allowed
    /// options.
    private func readImgproxySettings(into c: inout ServerConfiguration, env: (String) -> String?, envFlag: (String) -> Bool) throws {
        if let text = quality.map(String.init) ?? env("QUALITY") {
            guard let value = Int(text), (1...100).contains(value) else { throw ValidationError("quality \(text): expected 1 to 100") }
            c.encoder.quality = value
        }
        if let text = formatQuality ?? env("FORMAT_QUALITY") {
            for pair in text.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, let format = ImageFormat(name: parts[0]), let value = Int(parts[1]), (1...100).contains(value) else {
                    throw ValidationError("format quality \(pair): expected FORMAT=1...100, such as avif=60")
                }
                c.encoder.formatQuality[format] = value
            }
        }
        c.encoder.progressiveJPEG = jpegProgressive || envFlag("JPEG_PROGRESSIVE")
        c.allowSecurityOptions = allowSecurityOptions || envFlag("ALLOW_SECURITY_OPTIONS")
        if let text = env("ALLOWED_PROCESSING_OPTIONS") {
            c.allowedOptions = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        if let base = baseURL ?? env("BASE_URL") { c.sourceRules.baseURL = base }
        if let rules = urlReplacements ?? env("URL_REPLACEMENTS") {
            do {
                c.sourceRules.replacements = try SourceRules.replacements(from: rules)
            } catch {
                throw ValidationError("URL replacements: \(error)")
            }
        }
        c.sourceRules.base64IncludesFilename = envFlag("BASE64_URL_INCLUDES_FILENAME")
    }

    /// `HOST:PORT` (`[::1]:9090` for IPv6, `:9090` for every address).
    static func address(_ text: String, flag: String) throws -> (host: String, port: Int) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), (0...65_535).contains(port) else {
            throw ValidationError("\(flag) \(text): expected HOST:PORT, such as 127.0.0.1:9090")
        }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host.isEmpty ? "0.0.0.0" : host, port)
    }

    /// `--log-format`, else `DARKROOM_LOG_FORMAT`; text by default.
    func logFormat(env: (String) -> String?) throws -> JSONLogHandler.Format {
        guard let text = logFormat ?? env("LOG_FORMAT") else { return .text }
        guard let format = JSONLogHandler.Format(rawValue: text.lowercased()) else {
            throw ValidationError("--log-format \(text): expected text or json")
        }
        return format
    }

    /// The shared cache's configuration: where, which store, whose keys.
    static func sharedCache(_ text: String, endpoint: String?, environment: [String: String]) throws -> SharedResultCache.Configuration {
        let location: S3Location
        do {
            location = try S3Location(parsing: text)
        } catch {
            throw ValidationError("--result-cache: \(error.reason)")
        }
        let (url, credentials) = try S3Store.resolve(endpoint: endpoint, environment: environment, flag: "--result-cache")
        return SharedResultCache.Configuration(location: location, endpoint: url, credentials: credentials)
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
