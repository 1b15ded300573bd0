@testable import DarkroomCLI
import Darkroom
import DarkroomServer
import Foundation
import Testing
import TestSupport

@Suite struct ServeFlagsTests {
    func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        try ServeCommand.parse(arguments).serverConfiguration(environment: environment)
    }

    @Test func memoryCacheWorkersAndAccessLog() throws {
        let c = try configuration(["--memory-cache-mb", "64", "--workers", "3", "--access-log"])
        #expect(c.memoryCacheBytes == 64 << 20)
        #expect(c.filtrationConcurrency == 3)
        #expect(c.accessLog)

        let fromEnvironment = try configuration([], environment: ["DARKROOM_MEMORY_CACHE_MB": "8", "DARKROOM_WORKERS": "1", "DARKROOM_ACCESS_LOG": "true"])
        #expect(fromEnvironment.memoryCacheBytes == 8 << 20)
        #expect(fromEnvironment.filtrationConcurrency == 1)
        #expect(fromEnvironment.accessLog)

        let defaults = try configuration([])
        #expect(defaults.memoryCacheBytes == nil)
        #expect(!defaults.accessLog)
        // A flag wins over the variable.
        #expect(try configuration(["--workers", "2"], environment: ["DARKROOM_WORKERS": "5"]).filtrationConcurrency == 2)
    }

    @Test func sourceMinUses() throws {
        #expect(try configuration([]).sourceMinUses == 2)
        #expect(try configuration(["--source-min-uses", "1"]).sourceMinUses == 1)
        #expect(try configuration([], environment: ["DARKROOM_SOURCE_MIN_USES": "3"]).sourceMinUses == 3)
    }

    @Test func outOfRangeNumbersAreRefusedByName() throws {
        for (arguments, environment, word) in [
            (["--memory-cache-mb", "-1"], [:], "memory-cache-mb"),
            (["--memory-cache-mb", "99999999999"], [:], "memory-cache-mb"),
            (["--workers", "0"], [:], "workers"),
            (["--workers", "100000"], [:], "workers"),
            ([], ["DARKROOM_WORKERS": "NaN"], "DARKROOM_WORKERS"),
            ([], ["DARKROOM_MEMORY_CACHE_MB": "1e300"], "DARKROOM_MEMORY_CACHE_MB"),
            (["--max-result-dimension", "0"], [:], "max-result-dimension"),
            (["--max-result-dimension", "1000000"], [:], "max-result-dimension"),
            (["--max-processing-seconds", "0"], [:], "max-processing-seconds"),
            ([], ["DARKROOM_MAX_PROCESSING_SECONDS": "NaN"], "DARKROOM_MAX_PROCESSING_SECONDS"),
            (["--source-min-uses", "0"], [:], "source-min-uses"),
            (["--source-min-uses", "5000"], [:], "source-min-uses"),
            ([], ["DARKROOM_SOURCE_MIN_USES": "-1"], "DARKROOM_SOURCE_MIN_USES"),
            (["--max-jpeg-scans", "0"], [:], "max-jpeg-scans"),
            (["--max-jpeg-scans", "10001"], [:], "max-jpeg-scans"),
            ([], ["DARKROOM_MAX_JPEG_SCANS": "1e9"], "DARKROOM_MAX_JPEG_SCANS"),
            (["--max-request-memory-mb", "8"], [:], "max-request-memory-mb"),
            (["--max-request-memory-mb", "9999999"], [:], "max-request-memory-mb"),
            ([], ["DARKROOM_MAX_REQUEST_MEMORY_MB": "-5"], "DARKROOM_MAX_REQUEST_MEMORY_MB"),
            (["--max-source-frames", "0"], [:], "max-source-frames"),
            (["--max-source-frames", "2000000"], [:], "max-source-frames"),
            ([], ["DARKROOM_MAX_SOURCE_FRAMES": "many"], "DARKROOM_MAX_SOURCE_FRAMES"),
            (["--result-cache-timeout", "5"], [:], "--result-cache-timeout needs --result-cache"),
        ] as [([String], [String: String], String)] {
            do {
                _ = try configuration(arguments, environment: environment)
                Issue.record("\(arguments) \(environment) was accepted")
            } catch {
                #expect("\(error)".contains(word), "\(error)")
            }
        }
    }

    /// As a user meets them: `darkroom serve` with the bad number, as a
    /// flag or in the environment, exits with status 2 and says which.
    /// (An address no server can take makes a wrongly accepted number end
    /// the run too, with another status, rather than serve.)
    @Test(arguments: [
        (["--workers", "0"], [:]), (["--max-jpeg-scans", "10001"], [:]), (["--max-request-memory-mb", "8"], [:]),
        (["--port", "70000"], [:]), ([], ["DARKROOM_MAX_PROCESSING_SECONDS": "NaN"]), ([], ["DARKROOM_MEMORY_CACHE_MB": "1e300"]),
    ] as [([String], [String: String])])
    func outOfRangeNumbersExitWithStatusTwo(arguments: [String], environment: [String: String]) async throws {
        let run = try await DarkroomProcess.run(["serve", "--host", "300.300.300.300"] + arguments, environment: environment)
        #expect(run.status == 2, "\(arguments) \(environment): \(run.status) \(run.stderr)")
        let named = arguments.first.map { String($0.dropFirst(2)) } ?? environment.keys.first ?? ""
        #expect(run.stderr.contains(named), "\(run.stderr)")
    }

    @Test func scanAndMemoryLimits() throws {
        let defaults = try configuration([])
        #expect(defaults.limits.maxJPEGScans == 100)
        #expect(defaults.limits.maxDecodeMemory == ImageLimits.defaultDecodeMemory)
        let flags = try configuration(["--max-jpeg-scans", "40", "--max-request-memory-mb", "96"])
        #expect(flags.limits.maxJPEGScans == 40 && flags.limits.maxDecodeMemory == 96 << 20)
        let environment = try configuration([], environment: ["DARKROOM_MAX_JPEG_SCANS": "12", "DARKROOM_MAX_REQUEST_MEMORY_MB": "64"])
        #expect(environment.limits.maxJPEGScans == 12 && environment.limits.maxDecodeMemory == 64 << 20)
    }

    @Test func keyRotationSignatureSizeAndPresetsOnly() throws {
        let pairs = try configuration(["--key", "6b31", "--salt", "7331", "--key", "6b32", "--salt", "7332", "--signature-size", "8"])
        #expect(pairs.signatures.map(\.key) == [[0x6b, 0x31], [0x6b, 0x32]])
        #expect(pairs.signatures.map(\.salt) == [[0x73, 0x31], [0x73, 0x32]])
        #expect(pairs.signatures.allSatisfy { $0.size == 8 })
        let fromEnvironment = try configuration([], environment: ["DARKROOM_KEY": "6b31,6b32", "DARKROOM_SALT": "7331", "DARKROOM_SIGNATURE_SIZE": "16"])
        #expect(fromEnvironment.signatures.count == 2 && fromEnvironment.signatures.allSatisfy { $0.salt == [0x73, 0x31] && $0.size == 16 })
        #expect(try configuration([]).signatures.isEmpty)
        for (arguments, word) in [
            (["--key", "6b31", "--key", "6b32", "--salt", "01", "--salt", "02", "--salt", "03"], "pair"),
            (["--salt", "7331"], "pair"),
            (["--key", "6b31", "--signature-size", "33"], "signature-size"),
            (["--key", "6b31", "--signature-size", "0"], "signature-size"),
            (["--signature-size", "8"], "signature-size"),
            (["--key", "xyz"], "hex"),
            (["--only-presets"], "only-presets"),
        ] {
            refuses([:], arguments, naming: word)
        }
        let only = try configuration(["--only-presets", "--preset", "thumb=rs:fill:100:100"])
        #expect(only.onlyPresets && only.presets == ["thumb": "rs:fill:100:100"])
    }

    @Test func watermarkAndFallbackFilesAreReadAndChecked() async throws {
        let mark = try await ServeCommand.imageFile(at: Fixtures.url("alpha.png").path, flag: "--watermark")
        #expect(mark == (try Data(contentsOf: Fixtures.url("alpha.png"))))
        for (path, flag) in [(Fixtures.url("page.html").path, "--fallback-image"), ("/nonexistent/mark.png", "--watermark")] {
            do {
                _ = try await ServeCommand.imageFile(at: path, flag: flag)
                Issue.record("\(path) was taken for \(flag)")
            } catch {
                #expect("\(error)".contains(flag), "\(error)")
            }
        }
    }

    @Test func resultSizeAndProcessingTimeLimits() throws {
        let defaults = try configuration([])
        #expect(defaults.limits.maxResultDimension == 8192)
        #expect(defaults.limits.maxProcessingTime == .seconds(20))
        let c = try configuration(["--max-result-dimension", "4000", "--max-processing-seconds", "5"])
        #expect(c.limits.maxResultDimension == 4000)
        #expect(c.limits.maxProcessingTime == .seconds(5))
        let e = try configuration([], environment: ["DARKROOM_MAX_RESULT_DIMENSION": "2000", "DARKROOM_MAX_PROCESSING_SECONDS": "9"])
        #expect(e.limits.maxResultDimension == 2000 && e.limits.maxProcessingTime == .seconds(9))
    }

    /// How long a read from the shared result cache may wait is checked as
    /// a user meets it: out of range, `darkroom serve` exits with status 2
    /// and names the flag (the replicas of the shared-cache tests run with
    /// it set).
    @Test(arguments: ["0", "3601"])
    func resultCacheTimeoutOutOfRange(seconds: String) async throws {
        let run = try await DarkroomProcess.run(["serve", "--host", "300.300.300.300", "--result-cache", "s3://darkroom/cache", "--s3-endpoint", "http://127.0.0.1:9",
                                                 "--result-cache-timeout", seconds],
                                                environment: ["AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s", "AWS_REGION": "us-east-1"])
        #expect(run.status == 2 && run.stderr.contains("result-cache-timeout"), "\(run.status) \(run.stderr)")
    }

    @Test func theDefaultMemoryCacheFitsTheMachine() {
        let bytes = ImagePipeline.Configuration.defaultMemoryCacheBytes
        #expect(bytes >= 16 << 20 && bytes <= 256 << 20)
        #expect(ImagePipeline.Configuration().memoryCache.costLimit == bytes)
    }
}

/// An imgproxy deployment's environment, read as it is.
@Suite struct ImgproxyEnvironmentTests {
    func configuration(_ environment: [String: String], _ arguments: [String] = []) throws -> ServerConfiguration {
        try ServeFlagsTests().configuration(arguments, environment: environment)
    }

    /// The live drop-in test's 24 variables, each read into its setting
    /// (each is set away from its default, so a variable not read fails).
    @Test func eachOfTheDropInsSettingsIsRead() throws {
        let environment = ImgproxyDropIn.environment(cookieBaseURL: "http://127.0.0.1:8080/")
        #expect(environment.count == 24)
        #expect(ImgproxyEnvironment(environment).unhonoured.isEmpty)
        let c = try configuration(environment)
        let e = c.encoder.settings
        let read: [(String, Bool)] = [
            ("BIND", c.host == "127.0.0.1" && c.port == 0), ("PATH_PREFIX", c.imagePaths.prefix == "/images"),
            ("ENABLE_CLIENT_HINTS", c.clientHints), ("USE_LAST_MODIFIED", !c.usesLastModified),
            ("CACHE_CONTROL_PASSTHROUGH", c.cacheControlPassthrough), ("TTL", c.cacheMaxAge == 600),
            ("PNG_INTERLACED", e.pngInterlaced), ("PNG_QUANTIZE", e.pngQuantize), ("PNG_QUANTIZATION_COLORS", e.pngQuantizationColours == 16),
            ("WEBP_EFFORT", e.webpEffort == 5), ("WEBP_COMPRESSION", e.webpCompression == .nearLossless),
            ("WEBP_SMART_SUBSAMPLE", e.webpSmartSubsample), ("AVIF_SPEED", e.avifSpeed == 7), ("JPEG_TRELLIS_QUANT", e.jpegTrellisQuant),
            ("PRESERVE_HDR", c.encoder.preserveHDR), ("USER_AGENT", c.userAgent.hasPrefix("thumbs/")), ("MAX_REDIRECTS", c.maxRedirects == 3),
            ("COOKIE_PASSTHROUGH", c.cookiePassthrough != nil),
            ("COOKIE_BASE_URL", c.cookiePassthrough?.baseURL?.absoluteString == "http://127.0.0.1:8080/"),
            ("ALLOWED_SOURCES", c.allowedSources == ["http://127.0.0.1:*/"]), ("ALLOW_LOOPBACK_SOURCE_ADDRESSES", c.allowPrivateNetworks),
            ("ALLOW_ORIGIN", c.allowOrigin == "*"), ("SANITIZE_SVG", !c.limits.sanitizesSVG), ("ALWAYS_RASTERIZE_SVG", c.alwaysRasterizeSVG),
        ]
        #expect(read.count == environment.count)
        for (name, isRead) in read {
            #expect(environment["IMGPROXY_\(name)"] != nil && isRead, "IMGPROXY_\(name)")
        }
    }

    @Test func imgproxysVariablesMeanWhatTheyMeanThere() throws {
        let c = try configuration([
            "IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656C6C6F", "IMGPROXY_SIGNATURE_SIZE": "8",
            "IMGPROXY_BIND": "127.0.0.1:9090", "IMGPROXY_WORKERS": "3", "IMGPROXY_QUALITY": "70",
            "IMGPROXY_FORMAT_QUALITY": "jpeg=75,avif=50", "IMGPROXY_MAX_SRC_RESOLUTION": "16.5", "IMGPROXY_MAX_SRC_FILE_SIZE": "1000000",
            "IMGPROXY_ALLOWED_SOURCES": "https://a.example/,https://b.example/img/", "IMGPROXY_PRESETS": "thumb=rs:fill:100:100,default=q:60",
            "IMGPROXY_TTL": "600", "IMGPROXY_DOWNLOAD_TIMEOUT": "7", "IMGPROXY_JPEG_PROGRESSIVE": "true",
            "IMGPROXY_ALLOW_SECURITY_OPTIONS": "true", "IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "rs,q,pr",
            "IMGPROXY_BASE_URL": "https://a.example/", "IMGPROXY_URL_REPLACEMENTS": "s3://images/=https://a.example/",
            "IMGPROXY_MAX_RESULT_DIMENSION": "0", "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
        ])
        #expect(c.signatures.count == 1 && c.signatures[0].size == 8)
        #expect(c.host == "127.0.0.1" && c.port == 9090 && c.filtrationConcurrency == 3)
        #expect(c.encoder.quality == 70 && c.encoder.formatQuality[.jpeg] == 75 && c.encoder.formatQuality[.avif] == 50)
        #expect(c.encoder.formatQuality[.webp] == 79, "imgproxy's own default where the variable says nothing")
        #expect(c.limits.maxSourcePixels == 16_500_000 && c.limits.maxSourceBytes == 1_000_000)
        #expect(c.allowedSources == ["https://a.example/", "https://b.example/img/"])
        #expect(c.presets == ["thumb": "rs:fill:100:100", "default": "q:60"])
        #expect(c.cacheMaxAge == 600 && c.downloadTimeout == .seconds(7) && c.encoder.progressiveJPEG)
        #expect(c.allowSecurityOptions && c.allowedOptions == ["rs", "q", "pr"])
        #expect(c.sourceRules.baseURL == "https://a.example/" && c.sourceRules.replacements.count == 1)
        #expect(c.limits.maxResultDimension == 8192, "0 is no limit to imgproxy; Darkroom's own protection stays")
        #expect(c.allowPrivateNetworks)
    }

    @Test func thePathPrefixIsImgproxysAndChecked() throws {
        #expect(try configuration([:]).imagePaths.prefix == "", "image URLs at the root by default, as imgproxy")
        #expect(try configuration(["IMGPROXY_PATH_PREFIX": "/images"]).imagePaths.prefix == "/images")
        #expect(try configuration(["IMGPROXY_PATH_PREFIX": "/images"], ["--path-prefix", "/pictures/v1"]).imagePaths.prefix == "/pictures/v1")
        #expect(ImgproxyEnvironment(["IMGPROXY_PATH_PREFIX": "/images"]).unhonoured.isEmpty)
        for bad in ["images", "/images/", "/img", "/health", "/api/v1", "/a b", "/a?b", "/100%"] {
            refuses([:], ["--path-prefix", bad], naming: "--path-prefix")
        }
    }

    @Test func lastModifiedIsOnAsInImgproxyAndCanBeTurnedOff() throws {
        #expect(try configuration([:]).usesLastModified)
        #expect(try !configuration(["IMGPROXY_USE_LAST_MODIFIED": "false"]).usesLastModified)
        #expect(try !configuration(["IMGPROXY_USE_LAST_MODIFIED": "f"]).usesLastModified, "Go's forms, as imgproxy reads them")
        #expect(try configuration(["IMGPROXY_USE_LAST_MODIFIED": "false"], ["--last-modified"]).usesLastModified)
        #expect(try !configuration([:], ["--no-last-modified"]).usesLastModified)
        #expect(ImgproxyEnvironment(["IMGPROXY_USE_LAST_MODIFIED": "true"]).unhonoured.isEmpty)
        refuses(["DARKROOM_USE_LAST_MODIFIED": "maybe"], naming: "DARKROOM_USE_LAST_MODIFIED maybe: expected true or false")
    }

    @Test func theOriginIsAskedAsImgproxyIsTold() throws {
        #expect(try configuration([:]).userAgent == "Darkroom/0.1" && configuration([:]).maxRedirects == 5)
        let c = try configuration(["IMGPROXY_USER_AGENT": "thumbs/%current_version (+https://example.com)", "IMGPROXY_MAX_REDIRECTS": "10"])
        #expect(c.userAgent == "thumbs/0.1 (+https://example.com)" && c.maxRedirects == 10)
        #expect(ImgproxyEnvironment(["IMGPROXY_USER_AGENT": "x", "IMGPROXY_MAX_REDIRECTS": "3"]).unhonoured.isEmpty)
        refuses([:], ["--max-redirects", "21"], naming: "--max-redirects 21 is over 20")
        refuses(["IMGPROXY_MAX_REDIRECTS": "-1"], naming: "MAX_REDIRECTS=-1: expected a whole number")
        refuses([:], ["--user-agent", "a\r\nX-Injected: 1"], naming: "--user-agent: up to 256 printable ASCII characters")
    }

    @Test func cacheControlPassthroughIsImgproxys() throws {
        #expect(try !configuration([:]).cacheControlPassthrough)
        #expect(try configuration(["IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true"]).cacheControlPassthrough)
        #expect(try configuration([:], ["--cache-control-passthrough"]).cacheControlPassthrough)
        #expect(try !configuration([:]).clientHints && configuration(["IMGPROXY_ENABLE_CLIENT_HINTS": "true"]).clientHints)
        #expect(try configuration([:], ["--client-hints"]).clientHints)
        #expect(ImgproxyEnvironment(["IMGPROXY_ENABLE_CLIENT_HINTS": "1"]).unhonoured.isEmpty)
        #expect(ImgproxyEnvironment(["IMGPROXY_CACHE_CONTROL_PASSTHROUGH": "true", "IMGPROXY_TTL": "60"]).unhonoured.isEmpty)
        refuses(["DARKROOM_CACHE_CONTROL_PASSTHROUGH": "sometimes"], naming: "CACHE_CONTROL_PASSTHROUGH sometimes: expected true or false")
    }

    @Test func theSourceURLEncryptionKeyIsImgproxys() throws {
        let key = "1eb5b0e971ad7f45324c1bb15c947cb207c43152fa5c6c7f35c4f36e0c18e0f1"
        let signed = ["IMGPROXY_KEY": "943b421c9eb07c83", "IMGPROXY_SALT": "520f986b998545b4"]
        #expect(try configuration(signed.merging(["IMGPROXY_SOURCE_URL_ENCRYPTION_KEY": key]) { $1 }).sourceRules.encryptionKey?.count == 32)
        #expect(try configuration([:], ["--key", "943b421c9eb07c83", "--salt", "520f986b998545b4",
                                        "--source-url-encryption-key", String(key.prefix(32))]).sourceRules.encryptionKey?.count == 16)
        for bad in ["abc", String(key.prefix(30)), "zz" + key.dropFirst(2), key + "00"] {
            refuses(signed, ["--source-url-encryption-key", bad], naming: "--source-url-encryption-key: expected 16, 24 or 32 bytes")
        }
        #expect(ImgproxyEnvironment(["IMGPROXY_SOURCE_URL_ENCRYPTION_KEY": key]).unhonoured.isEmpty)
        // Unsigned URLs would let a client send tokens of its own: refused at start.
        do {
            _ = try configuration(["IMGPROXY_SOURCE_URL_ENCRYPTION_KEY": key])
            Issue.record("an encryption key without signing was accepted")
        } catch {
            #expect("\(error)".contains("needs signed URLs"), "\(error)")
        }
    }

    @Test func theSecretIsImgproxys() throws {
        #expect(try configuration([:]).secret.value == nil)
        #expect(try configuration(["IMGPROXY_SECRET": "s3cr3t"]).secret.value == "s3cr3t")
        #expect(try configuration([:], ["--secret", "flag"]).secret.value == "flag")
        #expect(ImgproxyEnvironment(["IMGPROXY_SECRET": "s3cr3t"]).unhonoured.isEmpty)
        let secret = ServerSecret("s3cr3t")
        #expect(secret.admits("Bearer s3cr3t"))
        for wrong in [nil, "", "Bearer", "Bearer s3cr3", "Bearer s3cr3t ", "bearer s3cr3t", "Bearer S3CR3T", "s3cr3t"] {
            #expect(!secret.admits(wrong), "\(String(describing: wrong))")
        }
        #expect(ServerSecret().admits(nil))
    }

    @Test func svgSettingsAreImgproxys() throws {
        // Drawn by default, as imgproxy draws it, in a child of this program.
        let plain = try configuration([:])
        #expect(plain.limits.sanitizesSVG && plain.limits.svgDrawing?.command.last == "render-svg" && !plain.alwaysRasterizeSVG)
        #expect(try !configuration(["IMGPROXY_SANITIZE_SVG": "false"]).limits.sanitizesSVG)
        #expect(try configuration([:], ["--svg-render"]).limits.svgRendering)
        #expect(try !configuration([:], ["--no-svg-render"]).limits.svgRendering)
        #expect(try !configuration(["DARKROOM_SVG_RENDER": "false"]).limits.svgRendering)
        // Always rasterising means drawing: it turns the renderer on.
        let always = try configuration(["IMGPROXY_ALWAYS_RASTERIZE_SVG": "true"])
        #expect(always.alwaysRasterizeSVG && always.limits.svgRendering)
        #expect(ImgproxyEnvironment(["IMGPROXY_SANITIZE_SVG": "true", "IMGPROXY_ALWAYS_RASTERIZE_SVG": "true"]).unhonoured.isEmpty)
        #expect(try configuration([:], ["--always-rasterize-svg"]).limits.svgRendering)
        refuses([:], ["--always-rasterize-svg", "--no-svg-render"], naming: "--always-rasterize-svg needs SVG drawing")
        refuses([:], ["--sanitize-svg", "perhaps"], naming: "--sanitize-svg perhaps: expected true or false")
    }

    @Test func cookiePassthroughIsImgproxys() throws {
        #expect(try configuration([:]).cookiePassthrough == nil)
        let c = try configuration(["IMGPROXY_COOKIE_PASSTHROUGH": "true", "IMGPROXY_COOKIE_BASE_URL": "https://site.example/members/"])
        #expect(c.cookiePassthrough == CookiePassthrough(baseURL: URL(string: "https://site.example/members/")))
        #expect(try configuration([:], ["--cookie-passthrough", "--cookie-passthrough-all"]).cookiePassthrough?.all == true)
        #expect(ImgproxyEnvironment(["IMGPROXY_COOKIE_PASSTHROUGH": "1", "IMGPROXY_COOKIE_PASSTHROUGH_ALL": "1",
                                     "IMGPROXY_COOKIE_BASE_URL": "https://x.example/"]).unhonoured.isEmpty)
        refuses([:], ["--cookie-passthrough", "--cookie-base-url", "ftp://x/"], naming: "--cookie-base-url ftp://x/: expected an http or https URL")
        refuses([:], ["--cookie-passthrough-all"], naming: "need --cookie-passthrough")
        #expect(try configuration(["IMGPROXY_REQUEST_HEADERS_PASSTHROUGH": "Authorization, X-Tenant"]).requestHeadersPassthrough == ["authorization", "x-tenant"])
        for bad in ["Host", "Content-Length", "Cookie", "If-None-Match", "bad header"] {
            refuses([:], ["--request-headers-passthrough", bad], naming: "is not a header that can be passed on")
        }
    }

    /// imgproxy's negotiation switches, by its names and Darkroom's: unset,
    /// Darkroom negotiates AVIF and WebP; set, they decide.
    @Test func theNegotiationSwitchesAreImgproxys() throws {
        #expect(try configuration([:]).negotiation == FormatNegotiation(automatic: [.avif, .webp], enforced: []))
        #expect(try configuration(["IMGPROXY_AUTO_AVIF": "false"]).negotiation.automatic == [.webp])
        #expect(try configuration(["IMGPROXY_AUTO_AVIF": "false", "IMGPROXY_AUTO_WEBP": "false"]).negotiation.automatic.isEmpty)
        #expect(try configuration(["IMGPROXY_ENABLE_AVIF_DETECTION": "false"]).negotiation.automatic == [.webp], "the older name")
        #expect(try configuration(["IMGPROXY_ENFORCE_WEBP": "true"]).negotiation.enforced == [.webp])
        #expect(try configuration(["IMGPROXY_AUTO_JXL": "true"], ["--jpeg-xl"]).negotiation.automatic == [.avif, .webp, .jxl])
        refuses(["IMGPROXY_AUTO_JXL": "true"], naming: "need --jpeg-xl")
        refuses(["DARKROOM_ENFORCE_AVIF": "sometimes"], naming: "DARKROOM_ENFORCE_AVIF sometimes: expected true or false")
        #expect(ImgproxyEnvironment(["IMGPROXY_AUTO_WEBP": "false", "IMGPROXY_AUTO_AVIF": "false", "IMGPROXY_ENFORCE_AVIF": "true"]).unhonoured.isEmpty)
    }

    /// An imgproxy S3 deployment's settings: s3:// sources from any bucket
    /// the AWS credentials can read, at its endpoint and region.
    @Test func theS3SettingsAreImgproxys() throws {
        let environment = ["IMGPROXY_USE_S3": "true", "IMGPROXY_S3_ENDPOINT": "http://127.0.0.1:8333", "IMGPROXY_S3_REGION": "eu-west-1",
                           "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret"]
        #expect(ImgproxyEnvironment(environment).unhonoured.isEmpty)
        let sources = try #require(try configuration(environment).s3Sources, "IMGPROXY_USE_S3 serves s3:// sources")
        #expect(sources.allowedBuckets == ["*"] && sources.endpoint.absoluteString == "http://127.0.0.1:8333")
        #expect(sources.credentials.region == "eu-west-1" && sources.credentials.accessKeyID == "AKIDEXAMPLE")
        #expect(try configuration(["IMGPROXY_USE_S3": "false"]).s3Sources == nil)
    }

    @Test func theAllowedOriginIsImgproxys() throws {
        #expect(try configuration([:]).allowOrigin == nil)
        #expect(try configuration(["IMGPROXY_ALLOW_ORIGIN": "*"]).allowOrigin == "*")
        #expect(try configuration([:], ["--allow-origin", "https://pages.example"]).allowOrigin == "https://pages.example")
        refuses([:], ["--allow-origin", "https://a.example\r\nSet-Cookie: x"], naming: "expected * or an origin")
    }

    @Test func darkroomsOwnWinsAndWhatIsNotHonouredIsNamed() throws {
        let environment = ["IMGPROXY_QUALITY": "70", "DARKROOM_QUALITY": "90", "IMGPROXY_WORKERS": "3",
                           "IMGPROXY_USE_GCS": "true", "IMGPROXY_ALLOWED_SOURCES": "https://*.example/", "IMGPROXY_USE_ETAG": "true",
                           "IMGPROXY_AUTO_WEBP": "false"]
        let c = try configuration(environment, ["--workers", "2"])
        #expect(c.encoder.quality == 90 && c.filtrationConcurrency == 2)
        let read = ImgproxyEnvironment(environment)
        #expect(read.unhonoured.map { String($0.prefix { $0 != " " }) } == ["IMGPROXY_USE_GCS"])
        #expect(c.negotiation.automatic == [.avif], "IMGPROXY_AUTO_WEBP=false turns WebP's negotiation off")
        #expect(c.allowedSources == ["https://*.example/"], "patterns, as imgproxy's")
        // Link-local sorts before loopback: allowed with it all the same.
        #expect(ImgproxyEnvironment(["IMGPROXY_ALLOW_LINK_LOCAL_SOURCE_ADDRESSES": "true",
                                     "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"]).unhonoured.isEmpty)
        refuses(["IMGPROXY_QUALITY": "101"], naming: "quality 101: expected 1 to 100")
        refuses(["IMGPROXY_FORMAT_QUALITY": "pdf=50"], naming: "format quality pdf=50")
    }

    @Test func encoderSettingsByImgproxysNames() throws {
        #expect(try configuration([:]).encoder.settings == EncoderSettings())
        let environment = [
            "IMGPROXY_PNG_INTERLACED": "true", "IMGPROXY_PNG_QUANTIZE": "1", "IMGPROXY_PNG_QUANTIZATION_COLORS": "64",
            "IMGPROXY_WEBP_EFFORT": "6", "IMGPROXY_WEBP_PRESET": "photo", "IMGPROXY_WEBP_COMPRESSION": "near_lossless",
            "IMGPROXY_WEBP_SMART_SUBSAMPLE": "true", "IMGPROXY_AVIF_SPEED": "5", "IMGPROXY_AVIF_SUBSAMPLE": "off", "IMGPROXY_JXL_EFFORT": "7",
            "IMGPROXY_JPEG_NO_SUBSAMPLE": "true", "IMGPROXY_JPEG_TRELLIS_QUANT": "true", "IMGPROXY_JPEG_OVERSHOOT_DERINGING": "true",
            "IMGPROXY_JPEG_OPTIMIZE_SCANS": "true", "IMGPROXY_JPEG_QUANT_TABLE": "3",
        ]
        let s = try configuration(environment).encoder.settings
        #expect(s.pngInterlaced && s.pngQuantize && s.pngQuantizationColours == 64)
        #expect(s.webpEffort == 6 && s.webpPreset == .photo && s.webpCompression == .nearLossless && s.webpSmartSubsample)
        #expect(s.avifSpeed == 5 && s.avifSubsample == .off && s.jxlEffort == 7)
        #expect(s.jpegNoSubsample && s.jpegTrellisQuant && s.jpegOvershootDeringing && s.jpegOptimizeScans && s.jpegQuantTable == 3)
        #expect(ImgproxyEnvironment(environment).unhonoured.isEmpty, "an imgproxy deployment's settings start without a warning")
        #expect(try configuration(["IMGPROXY_PRESERVE_HDR": "true"]).encoder.preserveHDR && !configuration([:]).encoder.preserveHDR)
        #expect(try configuration(["IMGPROXY_UNSHARP_MASKING_MODE": "auto", "IMGPROXY_UNSHARP_MASKING_WEIGHT": "2", "IMGPROXY_UNSHARP_MASKING_DIVIDER": "20"])
                .encoder.unsharpMasking == UnsharpMasking(mode: .auto, weight: 2, divider: 20))
        #expect(try configuration([:], ["--unsharp-masking", "always::30"]).encoder.unsharpMasking == UnsharpMasking(mode: .always, divider: 30))
        refuses(["IMGPROXY_UNSHARP_MASKING_MODE": "often"], naming: "unsharp masking mode often")
        refuses(["IMGPROXY_UNSHARP_MASKING_DIVIDER": "0"], naming: "unsharp masking divider 0")
        // The flag over the variable, by the lowercased name.
        #expect(try configuration(["IMGPROXY_WEBP_EFFORT": "6"], ["--encoder", "webp_effort=2"]).encoder.settings.webpEffort == 2)
        for (name, value) in [("WEBP_EFFORT", "7"), ("WEBP_EFFORT", "0"), ("AVIF_SPEED", "10"), ("PNG_QUANTIZATION_COLORS", "1"),
                              ("JPEG_QUANT_TABLE", "9"), ("WEBP_PRESET", "sketch"), ("AVIF_SUBSAMPLE", "4:4:4"), ("PNG_QUANTIZE", "maybe")] {
            refuses(["IMGPROXY_\(name)": value], naming: name)
        }
        refuses([:], ["--encoder", "webp_quality=5"], naming: "--encoder webp_quality=5: expected NAME=VALUE")
    }

    @Test func logFormatAndMetricsAddress() throws {
        func address(_ arguments: [String], _ environment: [String: String] = [:]) throws -> String? {
            try configuration(environment, arguments).metricsAddress.map { "\($0.host) \($0.port)" }
        }
        #expect(try address(["--metrics-bind", "127.0.0.1:9090"]) == "127.0.0.1 9090")
        #expect(try address(["--metrics-bind", "[::1]:0"]) == "::1 0")
        #expect(try address([], ["DARKROOM_METRICS_BIND": ":9191"]) == "0.0.0.0 9191")
        #expect(try address([], ["IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:9192"]) == "127.0.0.1 9192")
        #expect(try address([]) == nil)
        for bad in ["9090", "host:", "host:65536", "host:-1"] {
            refuses([:], ["--metrics-bind", bad], naming: "--metrics-bind \(bad): expected HOST:PORT")
        }
        let serve = try ServeCommand.parse(["--log-format", "JSON"])
        #expect(try serve.logFormat { _ in nil } == .json)
        #expect(try ServeCommand.parse([]).logFormat { _ in nil } == .text)
        refuses([:], ["--log-format", "xml"], naming: "xml: expected text or json")
        refuses(["DARKROOM_LOG_FORMAT": "yaml"], naming: "yaml: expected text or json")
        // imgproxy's structured formats are JSON lines here.
        let imgproxy = ImgproxyEnvironment(["IMGPROXY_LOG_FORMAT": "structured"]).merged(into: [:])
        #expect(imgproxy["DARKROOM_LOG_FORMAT"] == "json")
    }
}

/// Asserts that `serve` with `environment` and `arguments` is refused, by
/// an error whose message has `text`: a misspelt or deleted flag (refused
/// for another reason) fails here.
func refuses(_ environment: [String: String], _ arguments: [String] = [], naming text: String,
             sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try ServeFlagsTests().configuration(arguments, environment: environment)
        Issue.record("accepted: \(environment) \(arguments)", sourceLocation: sourceLocation)
    } catch {
        #expect("\(error)".contains(text), "\(error)", sourceLocation: sourceLocation)
    }
}

/// imgproxy's watermark and fallback settings and Pro's header and info
/// preset settings, read as they are.
@Suite struct ImgproxyImageSettingsTests {
    func configuration(_ environment: [String: String], _ arguments: [String] = []) throws -> ServerConfiguration {
        try ServeFlagsTests().configuration(arguments, environment: environment)
    }

    @Test func watermarkFallbackHeadersAndInfoPresets() throws {
        // A 1 x 1 PNG.
        let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
        let environment = [
            "IMGPROXY_WATERMARK_DATA": png, "IMGPROXY_WATERMARK_URL": "https://a.example/mark.png", "IMGPROXY_WATERMARK_OPACITY": "0.5",
            "IMGPROXY_FALLBACK_IMAGE_DATA": png, "IMGPROXY_FALLBACK_IMAGE_URL": "https://a.example/missing.png",
            "IMGPROXY_CUSTOM_RESPONSE_HEADERS": "X-Served-By=darkroom\\;X-Team=photos", "IMGPROXY_CUSTOM_HEADERS_SEPARATOR": "\\;",
            "IMGPROXY_CUSTOM_REQUEST_HEADERS": "X-Origin-Token=abc", "IMGPROXY_INFO_PRESETS": "meta=xmp:0/bh:4:3,colours=dc:1",
            "IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH": "X-Photographer, X-Licence",
        ]
        #expect(ImgproxyEnvironment(environment).unhonoured.isEmpty)
        let c = try configuration(environment)
        #expect(c.watermark?.data.count == Data(base64Encoded: png)?.count && c.fallbackImage == Data(base64Encoded: png))
        #expect(c.watermarkURL?.absoluteString == "https://a.example/mark.png" && c.watermarkOpacity == 0.5)
        #expect(c.fallbackImageURL?.absoluteString == "https://a.example/missing.png")
        #expect(c.customResponseHeaders == [PassedHeader(name: "X-Served-By", value: "darkroom"), PassedHeader(name: "X-Team", value: "photos")])
        #expect(c.customRequestHeaders == [PassedHeader(name: "X-Origin-Token", value: "abc")])
        #expect(c.infoPresets == ["meta": "xmp:0/bh:4:3", "colours": "dc:1"])
        #expect(c.responseHeadersPassthrough == ["x-photographer", "x-licence"])
        // Another separator, as imgproxy's.
        let semicolons = try configuration(["IMGPROXY_CUSTOM_HEADERS_SEPARATOR": ";", "IMGPROXY_CUSTOM_RESPONSE_HEADERS": "A=1;B=2"])
        #expect(semicolons.customResponseHeaders.map(\.name) == ["A", "B"])
        #expect(try configuration([:], ["--custom-response-header", "X-A=1", "--custom-response-header", "X-B=2"]).customResponseHeaders.count == 2)
        for (variable, value) in [("IMGPROXY_WATERMARK_DATA", "not base64!"), ("IMGPROXY_WATERMARK_DATA", "aGVsbG8="),
                                  ("IMGPROXY_WATERMARK_OPACITY", "2"), ("IMGPROXY_WATERMARK_URL", "ftp://x/y"),
                                  ("IMGPROXY_CUSTOM_RESPONSE_HEADERS", "Content-Type=text/html"), ("IMGPROXY_CUSTOM_RESPONSE_HEADERS", "X-A"),
                                  ("IMGPROXY_CUSTOM_REQUEST_HEADERS", "If-None-Match=x"), ("IMGPROXY_CUSTOM_REQUEST_HEADERS", "Cookie=a=b"),
                                  ("IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH", "Set-Cookie"), ("IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH", "Content-Length"),
                                  ("IMGPROXY_INFO_PRESETS", "meta=nonsense:1:2:3:4:5:6:7:8:9:10:11:12:13:14:15:16:17:18")] {
            #expect(throws: (any Error).self, "\(variable)=\(value)") { try configuration([variable: value]) }
        }
    }
}

/// The folder of ICC profiles a URL's `cp` may name, read at start.
@Suite struct ColourProfilesFolderTests {
    @Test func profilesAreReadOnceAndOnlyFromTheFolder() throws {
        let folder = try Fixtures.temporaryFolder("darkroom-icc")
        defer { try? FileManager.default.removeItem(at: folder) }
        let profile = Data(repeating: 7, count: 600)
        try profile.write(to: folder.appendingPathComponent("Studio.icc"))
        try profile.write(to: folder.appendingPathComponent("notes.txt"))
        let outside = try Fixtures.temporaryFolder("darkroom-icc-outside")
        defer { try? FileManager.default.removeItem(at: outside) }
        try profile.write(to: outside.appendingPathComponent("Other.icc"))
        try FileManager.default.createSymbolicLink(at: folder.appendingPathComponent("Other.icc"), withDestinationURL: outside.appendingPathComponent("Other.icc"))
        let c = try ServeFlagsTests().configuration(["--color-profiles-dir", folder.path])
        #expect(Set(c.colourProfiles.keys) == ["Studio", "Studio.icc"], "\(c.colourProfiles)")
        #expect(throws: (any Error).self) { try ServeFlagsTests().configuration(["--color-profiles-dir", folder.appendingPathComponent("none").path]) }
        let imgproxy = try ServeFlagsTests().configuration([], environment: ["IMGPROXY_COLOR_PROFILES_DIR": folder.path])
        #expect(imgproxy.colourProfiles["Studio"] != nil)
    }
}
