import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ServiceLifecycle

/// How `serve` reads its flags and variables into a ``ServerConfiguration``.
extension ServeCommand {
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
        /// The flag, else its variable, within its setting's range
        /// (``ServeSettings``); out of it, refused naming the flag or the
        /// variable, whichever gave it.
        func number(_ flag: Int?, _ option: String) throws -> Int? {
            let setting = ServeSettings.named(option)
            let range = setting.range ?? 0...Int.max
            let value: Int
            if let flag {
                guard flag >= range.lowerBound else { throw ValidationError("--\(option) must be at least \(range.lowerBound)") }
                value = flag
            } else {
                guard let text = env(setting.variable) else { return nil }
                guard let number = Int(text), number >= range.lowerBound else {
                    throw ValidationError("DARKROOM_\(setting.variable)=\(text): expected a whole number of at least \(range.lowerBound)")
                }
                value = number
            }
            guard value <= range.upperBound else { throw ValidationError("--\(option) \(value) is over \(range.upperBound)") }
            return value
        }
        var c = ServerConfiguration()
        c.host = host ?? env("HOST") ?? c.host
        if let port = try number(port, "port") { c.port = port }
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
        if let bytes = try number(maxSourceBytes, "max-source-bytes") { c.limits.maxSourceBytes = bytes }
        if let pixels = try number(maxSourcePixels, "max-source-pixels") { c.limits.maxSourcePixels = pixels }
        if let side = try number(maxResultDimension, "max-result-dimension") {
            c.limits.maxResultDimension = side
        }
        if let seconds = try number(maxProcessingSeconds, "max-processing-seconds") {
            c.limits.maxProcessingTime = .seconds(seconds)
        }
        if let frames = try number(maxAnimationFrames, "max-animation-frames") {
            c.limits.maxAnimationFrames = frames
        }
        if let text = maxAnimationFrameResolution ?? env("MAX_ANIMATION_FRAME_RESOLUTION") {
            guard let megapixels = Double(text), megapixels.isFinite, (0...10_000).contains(megapixels) else {
                throw ValidationError("--max-animation-frame-resolution '\(text)' is not a number of megapixels from 0 to 10000")
            }
            c.limits.maxAnimationFramePixels = megapixels > 0 ? Int((megapixels * 1_000_000).rounded()) : nil
        }
        if let text = skipProcessingFormats ?? env("SKIP_PROCESSING_FORMATS") {
            for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
                // A PDF or a video is always drawn: never passed on as it came.
                guard let format = ImageFormat(name: name), format != .pdf, format != .video else {
                    throw ValidationError("--skip-processing-formats: '\(name)' is not an image format")
                }
                c.encoder.skipProcessing.insert(format)
            }
        }
        if let scans = try number(maxJPEGScans, "max-jpeg-scans") {
            c.limits.maxJPEGScans = scans
        }
        if let tiles = try number(maxHEIFTiles, "max-heif-tiles") {
            c.limits.maxHEIFTiles = tiles
        }
        if let frames = try number(maxSourceFrames, "max-source-frames") {
            c.limits.maxSourceFrames = frames
        }
        if let megabytes = try number(maxRequestMemoryMb, "max-request-memory-mb") {
            c.limits.maxDecodeMemory = megabytes << 20
        }
        c.limits.jpegXL = jpegXL || envFlag("JPEG_XL")
        // This very program draws SVG, PDF pages and video frames, as a child.
        let executable = DrawingChild.executable
        if try svgRender ?? env("SVG_RENDER").map({ try Self.boolean($0, "DARKROOM_SVG_RENDER") }) ?? true {
            c.limits.svgDrawing = DrawingChild.svg
        }
        c.limits.encodingChild = DrawingChild.encoder
        if try videoThumbnails || env("VIDEO_THUMBNAILS").map({ try Self.boolean($0, "DARKROOM_VIDEO_THUMBNAILS") }) ?? false {
            guard BuildFeatures.video else {
                throw ValidationError("--video-thumbnails: this build of darkroom has no video (built without the package's Video trait)")
            }
            var video = VideoThumbnails(command: [executable, "render-video-frame"])
            if let megabytes = try number(videoMaxMemoryMb, "video-max-memory-mb") {
                video.maxMemory = megabytes << 20
            }
            if let text = videoThumbnailSecond ?? env("VIDEO_THUMBNAIL_SECOND") {
                guard let second = Double(text), second.isFinite, VideoThumbnails.seconds.contains(second) else {
                    throw ValidationError("--video-thumbnail-second '\(text)' is not a number of seconds from 0 to 86400")
                }
                video.second = second
            }
            if let text = videoThumbnailKeyframes ?? env("VIDEO_THUMBNAIL_KEYFRAMES") {
                video.keyframes = try Self.boolean(text, "--video-thumbnail-keyframes")
            }
            if let bytes = try number(videoThumbnailProbeSize, "video-thumbnail-probe-size") {
                video.probeBytes = bytes
            }
            c.limits.videoThumbnails = video
        }
        if pdf || envFlag("PDF") {
            var pages = PDFPages(command: [executable, "render-pdf-page"])
            if let megabytes = try number(pdfMaxMemoryMb, "pdf-max-memory-mb") {
                pages.maxMemory = megabytes << 20
            }
            if let text = pdfNoBackground ?? env("PDF_NO_BACKGROUND") { pages.background = try !Self.boolean(text, "--pdf-no-background") }
            c.limits.pdfPages = pages
        }
        c.alwaysRasterizeSVG = try alwaysRasterizeSVG || env("ALWAYS_RASTERIZE_SVG").map { try Self.boolean($0, "DARKROOM_ALWAYS_RASTERIZE_SVG") } ?? false
        if c.alwaysRasterizeSVG, !c.limits.svgRendering {
            throw ValidationError("--always-rasterize-svg needs SVG drawing, which --no-svg-render turns off")
        }
        c.bestFormatByDefault = try bestFormatByDefault || env("BEST_FORMAT_BY_DEFAULT").map { try Self.boolean($0, "DARKROOM_BEST_FORMAT_BY_DEFAULT") } ?? false
        if let text = bestFormatComplexityThreshold ?? env("BEST_FORMAT_COMPLEXITY_THRESHOLD") {
            guard let value = Double(text), value.isFinite, (0...255).contains(value) else {
                throw ValidationError("--best-format-complexity-threshold '\(text)' is not a number from 0 to 255")
            }
            c.bestFormatComplexityThreshold = value
        }
        if let text = bestFormatMaxResolution ?? env("BEST_FORMAT_MAX_RESOLUTION") {
            guard let megapixels = Double(text), megapixels.isFinite, (0...10_000).contains(megapixels) else {
                throw ValidationError("--best-format-max-resolution '\(text)' is not a number of megapixels from 0 to 10000")
            }
            c.bestFormatMaxPixels = Int((megapixels * 1_000_000).rounded())
        }
        if let text = objectDetectionSize ?? env("OBJECT_DETECTION_SIZE") {
            guard let side = Int(text), ObjectDetection.sides.contains(side) else {
                throw ValidationError("--object-detection-size '\(text)' is not a whole number of pixels from \(ObjectDetection.sides.lowerBound) to \(ObjectDetection.sides.upperBound)")
            }
            c.objectDetection.side = side
        }
        if let text = objectDetectionConfidenceThreshold ?? env("OBJECT_DETECTION_CONFIDENCE_THRESHOLD") {
            guard let value = Double(text), value.isFinite, (0..<1).contains(value) else {
                throw ValidationError("--object-detection-confidence-threshold '\(text)' is not a number from 0 to below 1")
            }
            c.objectDetection.confidenceThreshold = value
        }
        if let text = objectDetectionGravityMode ?? env("OBJECT_DETECTION_GRAVITY_MODE") {
            guard let mode = ObjectDetection.GravityMode(rawValue: text) else {
                throw ValidationError("--object-detection-gravity-mode '\(text)' is not one of \(ObjectDetection.GravityMode.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            c.objectDetection.gravityMode = mode
        }
        if let text = objectDetectionFallbackToSmartCrop ?? env("OBJECT_DETECTION_FALLBACK_TO_SMART_CROP") {
            c.objectDetection.fallbackToSmart = try Self.boolean(text, "--object-detection-fallback-to-smart-crop")
        }
        if let text = sanitizeSVG ?? env("SANITIZE_SVG") { c.limits.sanitizesSVG = try Self.boolean(text, "--sanitize-svg") }
        if let seconds = try number(downloadTimeout, "download-timeout") { c.downloadTimeout = .seconds(seconds) }
        if let age = try number(cacheMaxAge, "cache-max-age") { c.cacheMaxAge = age }
        if let waiting = try number(maxWaiting, "max-waiting") { c.maxWaitingFiltrations = waiting }
        if let seconds = try number(keepAliveTimeout, "keep-alive-timeout") {
            c.keepAliveTimeout = .seconds(seconds)
        }
        if let seconds = try number(readRequestTimeout, "read-request-timeout") {
            c.readRequestTimeout = .seconds(seconds)
        }
        if let connections = try number(maxConnections, "max-connections") {
            c.connections.maxConnections = connections
        }
        if let connections = try number(maxConnectionsPerClient, "max-connections-per-client") {
            c.connections.maxPerClient = connections
        }
        if let seconds = try number(shutdownTimeout, "shutdown-timeout") { c.shutdownTimeout = .seconds(seconds) }
        if let seconds = try number(bookLifetime, "book-lifetime") { c.bookLifetime = .seconds(seconds) }
        if let megabytes = try number(memoryCacheMb, "memory-cache-mb") {
            guard megabytes <= 1 << 20 else { throw ValidationError("--memory-cache-mb \(megabytes) is over 1048576 (1 TiB)") }
            c.memoryCacheBytes = megabytes << 20
        }
        if let threads = try number(workers, "workers") {
            c.filtrationConcurrency = threads
        }
        if let uses = try number(sourceMinUses, "source-min-uses") {
            c.sourceMinUses = uses
        }
        let endpoint = s3Endpoint ?? env("S3_ENDPOINT")
        // The store's region, where set apart from the credentials (imgproxy's IMGPROXY_S3_REGION).
        var s3Environment = environment
        if let region = env("S3_REGION") { s3Environment["AWS_REGION"] = region }
        if let text = resultCache ?? env("RESULT_CACHE") {
            c.sharedCache = try Self.sharedCache(text, endpoint: endpoint, environment: s3Environment)
            c.sharedCache?.storesSources = sourceCache || envFlag("SOURCE_CACHE")
            if let seconds = try number(resultCacheTimeout, "result-cache-timeout") {
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
            let (url, credentials) = try S3Store.resolve(endpoint: endpoint, environment: s3Environment, flag: "--s3-sources")
            c.s3Sources = S3SourceLoader.Configuration(endpoint: url, credentials: credentials, allowedBuckets: buckets)
        }
        if s3Endpoint != nil, c.sharedCache == nil, c.s3Sources == nil {
            throw ValidationError("--s3-endpoint needs --result-cache or --s3-sources")
        }
        c.accessLog = accessLog || envFlag("ACCESS_LOG")
        if let lastModified {
            c.usesLastModified = lastModified
        } else if let text = env("USE_LAST_MODIFIED") {
            c.usesLastModified = try Self.boolean(text, "DARKROOM_USE_LAST_MODIFIED")
        }
        if try cookiePassthrough || env("COOKIE_PASSTHROUGH").map({ try Self.boolean($0, "DARKROOM_COOKIE_PASSTHROUGH") }) ?? false {
            var passthrough = CookiePassthrough()
            passthrough.all = try cookiePassthroughAll || env("COOKIE_PASSTHROUGH_ALL").map { try Self.boolean($0, "DARKROOM_COOKIE_PASSTHROUGH_ALL") } ?? false
            if let text = cookieBaseUrl ?? env("COOKIE_BASE_URL") {
                guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host?.isEmpty == false else {
                    throw ValidationError("--cookie-base-url \(text): expected an http or https URL")
                }
                passthrough.baseURL = url
            }
            c.cookiePassthrough = passthrough
        } else if cookiePassthroughAll || cookieBaseUrl != nil {
            throw ValidationError("--cookie-passthrough-all and --cookie-base-url need --cookie-passthrough")
        }
        if let text = requestHeadersPassthrough ?? env("REQUEST_HEADERS_PASSTHROUGH") {
            for name in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) where !name.isEmpty {
                guard HTTPField.Name(name) != nil, !ServerConfiguration.unpassableHeaders.contains(name) else {
                    throw ValidationError("--request-headers-passthrough: '\(name)' is not a header that can be passed on (the connection's own, a validator, or Cookie, which --cookie-passthrough sends)")
                }
                c.requestHeadersPassthrough.append(name)
            }
        }
        c.clientHints = try clientHints || env("CLIENT_HINTS").map { try Self.boolean($0, "DARKROOM_CLIENT_HINTS") } ?? false
        c.cacheControlPassthrough = try cacheControlPassthrough || env("CACHE_CONTROL_PASSTHROUGH").map { try Self.boolean($0, "DARKROOM_CACHE_CONTROL_PASSTHROUGH") } ?? false
        if let text = userAgent ?? env("USER_AGENT") {
            // imgproxy's placeholder is %current_version.
            let agent = text.replacingOccurrences(of: "%current_version", with: DataLoader.Configuration.version)
            guard agent.utf8.count <= 256, agent.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw ValidationError("--user-agent: up to 256 printable ASCII characters")
            }
            c.userAgent = agent
        }
        if let redirects = try number(maxRedirects, "max-redirects") { c.maxRedirects = redirects }
        if let code = try number(fallbackImageHttpCode, "fallback-image-http-code") {
            // An image goes with it: no informational status, none that has no body.
            guard code == 0 || ((200...599).contains(code) && code != 204 && code != 304) else {
                throw ValidationError("--fallback-image-http-code \(code): expected 0 or a status that carries a body, 200 to 599 but 204 and 304")
            }
            c.fallbackImageStatus = code
        }
        c.fallbackImageTTL = try number(fallbackImageTtl, "fallback-image-ttl")
        if let origin = allowOrigin ?? env("ALLOW_ORIGIN") {
            // A header's value: visible ASCII, as `*` or an origin is.
            guard origin.utf8.count <= 256, origin.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                throw ValidationError("--allow-origin \(origin): expected * or an origin such as https://example.com")
            }
            c.allowOrigin = origin
        }
        if let name = serverName ?? env("SERVER_NAME") {
            // A header's value: visible ASCII and spaces, as a product name is.
            guard (1...256).contains(name.utf8.count), name.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
                throw ValidationError("--server-name: 1 to 256 printable ASCII characters")
            }
            c.serverName = name
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
        try readImageSettings(into: &c, environment: environment)
        if let secret = secret ?? env("SECRET") { c.secret = ServerSecret(secret) }
        c.negotiation = try negotiation(env: env, jpegXL: c.limits.jpegXL)
        try readAnswerSettings(into: &c, env: env)
        if c.sourceRules.encryptionKey != nil, c.signatures.isEmpty {
            // Unsigned, any client could send tokens of its own making and
            // read the key's padding from the answers.
            throw ValidationError("--source-url-encryption-key needs signed URLs (--key and --salt): unsigned, a client can probe the encryption with tokens of its own")
        }
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
                guard parts.count == 2, let format = ImageFormat(name: parts[0]), format.canEncode, let value = Int(parts[1]), (1...100).contains(value) else {
                    throw ValidationError("format quality \(pair): expected FORMAT=1...100, such as avif=60")
                }
                c.encoder.formatQuality[format] = value
            }
        }
        c.encoder.progressiveJPEG = jpegProgressive || envFlag("JPEG_PROGRESSIVE")
        c.encoder.settings = try encoderSettings(env: env)
        c.encoder.unsharpMasking = try unsharpMaskingSetting(env: env)
        c.encoder.autoquality = try autoqualitySetting(env: env)
        c.encoder.preserveHDR = try preserveHdr || env("PRESERVE_HDR").map { try Self.boolean($0, "DARKROOM_PRESERVE_HDR") } ?? false
        c.allowSecurityOptions = allowSecurityOptions || envFlag("ALLOW_SECURITY_OPTIONS")
        if let text = env("ALLOWED_PROCESSING_OPTIONS") {
            c.allowedOptions = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
        if let text = env("ALLOWED_INFO_OPTIONS") {
            c.allowedInfoOptions = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
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
        if let hex = sourceUrlEncryptionKey ?? env("SOURCE_URL_ENCRYPTION_KEY") {
            guard let bytes = URLSignature.bytes(hex: hex), [16, 24, 32].contains(bytes.count) else {
                throw ValidationError("--source-url-encryption-key: expected 16, 24 or 32 bytes in hex (AES-128, -192 or -256)")
            }
            c.sourceRules.encryptionKey = bytes
        }
    }

    /// Which formats Accept chooses: `DARKROOM_AUTO_WEBP`, `_AUTO_AVIF`,
    /// `_AUTO_JXL` and `DARKROOM_ENFORCE_*` (imgproxy's switches, read
    /// through its names too), where set; AVIF and WebP automatic otherwise.
    private func negotiation(env: (String) -> String?, jpegXL: Bool) throws -> FormatNegotiation {
        var negotiation = FormatNegotiation()
        for (format, name) in [(ImageFormat.webp, "WEBP"), (.avif, "AVIF"), (.jxl, "JXL")] {
            if let text = env("AUTO_\(name)") {
                if try Self.boolean(text, "DARKROOM_AUTO_\(name)") { negotiation.automatic.insert(format) } else { negotiation.automatic.remove(format) }
            }
            if let text = env("ENFORCE_\(name)"), try Self.boolean(text, "DARKROOM_ENFORCE_\(name)") { negotiation.enforced.insert(format) }
        }
        if !jpegXL, negotiation.automatic.contains(.jxl) || negotiation.enforced.contains(.jxl) {
            throw ValidationError("DARKROOM_AUTO_JXL and DARKROOM_ENFORCE_JXL need --jpeg-xl (libvips marks its JPEG XL codec untrusted)")
        }
        return negotiation
    }

    /// Go's boolean forms, as imgproxy reads them, and yes/no.
    static func boolean(_ text: String, _ name: String) throws -> Bool {
        guard let value = ["true": true, "t": true, "1": true, "yes": true, "false": false, "f": false, "0": false, "no": false][text.lowercased()] else {
            throw ValidationError("\(name) \(text): expected true or false")
        }
        return value
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
}
