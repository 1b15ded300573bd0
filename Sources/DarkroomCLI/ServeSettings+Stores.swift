import ArgumentParser
import Darkroom
import DarkroomServer
import Foundation
import HTTPTypes

/// `serve`'s settings: the shared result cache, S3 sources, presets, and the server's watermark, fallback and fields. Each reads its flag,
/// else its variable, into the configuration.
extension ServeSettings {
    static let stores: [ServeSetting] = [
        ServeSetting("result-cache", "A result cache shared by replicas, in S3-compatible storage; credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION.", "DARKROOM_RESULT_CACHE", value: "s3://BUCKET/PREFIX") { i, c in
            if let text = i.resultCache ?? i.env("RESULT_CACHE") {
                c.sharedCache = try ServeCommand.sharedCache(text, endpoint: i.s3Endpoint ?? i.env("S3_ENDPOINT"), environment: i.s3Environment)
                c.sharedCache?.storesSources = i.sourceCache || i.envFlag("SOURCE_CACHE")
                if let seconds = try i.number(i.resultCacheTimeout, "result-cache-timeout") {
                    c.sharedCache?.client.timeout = .seconds(seconds)
                }
            } else if i.sourceCache {
                throw ValidationError("--source-cache needs --result-cache")
            } else if i.resultCacheTimeout != nil {
                throw ValidationError("--result-cache-timeout needs --result-cache")
            }
        },
        ServeSetting("result-cache-timeout", "Seconds a read from the result cache may take before the request goes on without it (default 2).", "DARKROOM_RESULT_CACHE_TIMEOUT", range: 1...3600),
        ServeSetting("s3-endpoint", "The S3 store's address, for the result cache and S3 sources (default: AWS_ENDPOINT_URL, else AWS's for the region).", "DARKROOM_S3_ENDPOINT", value: "URL", imgproxy: ["S3_ENDPOINT"]),
        ServeSetting("source-cache", "With --result-cache, keep downloaded sources there too, so no replica asks the origin for a photo another has.", "DARKROOM_SOURCE_CACHE"),
        ServeSetting("s3-sources", "Serve s3://BUCKET/KEY sources from these buckets (comma-separated; * for any the credentials can read).", "DARKROOM_S3_SOURCES", value: "BUCKETS") { i, c in
            if let text = i.s3Sources ?? i.env("S3_SOURCES") {
                let buckets = try ServeCommand.buckets(text, flag: "--s3-sources", any: true)
                guard !buckets.isEmpty else { throw ValidationError("--s3-sources: name the buckets (or * for any)") }
                let (url, credentials) = try S3Store.resolve(endpoint: i.s3Endpoint ?? i.env("S3_ENDPOINT"), environment: i.s3Environment, flag: "--s3-sources")
                c.s3Sources = S3SourceLoader.Configuration(endpoint: url, credentials: credentials, allowedBuckets: buckets)
            }
            if i.s3Endpoint != nil, c.sharedCache == nil, c.s3Sources == nil {
                throw ValidationError("--s3-endpoint needs --result-cache or --s3-sources")
            }
        },
        ServeSetting("s3-denied-buckets", "Buckets never read as sources, comma-separated, even under --s3-sources * (imgproxy's IMGPROXY_S3_DENIED_BUCKETS).", "DARKROOM_S3_DENIED_BUCKETS", value: "BUCKETS") { i, c in
            if let text = i.s3DeniedBuckets ?? i.env("S3_DENIED_BUCKETS") {
                guard c.s3Sources != nil else { throw ValidationError("--s3-denied-buckets needs --s3-sources") }
                c.s3Sources?.deniedBuckets = try ServeCommand.buckets(text, flag: "--s3-denied-buckets", any: false)
            }
        },
        ServeSetting("preset", "A named preset for pr:, as NAME=OPTIONS (rs:fill:300:300/sepia:0.8); repeatable; one named default applies to every URL.", "DARKROOM_PRESET", value: "NAME=OPTIONS", imgproxy: ["PRESETS"]) { i, c in
            let presets = i.preset.isEmpty ? (i.env("PRESET")?.split(separator: ",").map(String.init) ?? []) : i.preset
            for entry in presets {
                let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw ValidationError("--preset \(entry): expected NAME=OPTIONS") }
                c.presets[parts[0]] = parts[1]
            }
        },
        ServeSetting("watermark", "The image wm: lays over results (a PNG with transparency, usually).", "DARKROOM_WATERMARK", value: "FILE", imgproxy: ["WATERMARK_PATH"]),
        ServeSetting("fallback-image", "Answered, with the URL's options, in place of a source that cannot be had (not found, failing, not an image); the source's status is in the Darkroom-Source-Status header.", "DARKROOM_FALLBACK_IMAGE", value: "FILE", imgproxy: ["FALLBACK_IMAGE_PATH"]),
        ServeSetting("watermark-url", "An image fetched as sources are, laid by wm: over --watermark (imgproxy's IMGPROXY_WATERMARK_URL; DARKROOM_WATERMARK_DATA takes the image itself, base64-encoded).", "DARKROOM_WATERMARK_URL", value: "URL", imgproxy: ["WATERMARK_URL"]) { i, c in
            if let text = i.watermarkUrl ?? i.env("WATERMARK_URL") { c.watermarkURL = try ServeCommand.sourceURL(text, flag: "--watermark-url") }
        },
        ServeSetting("watermark-opacity", "Multiplies every wm: opacity, 0 to 1 (imgproxy's IMGPROXY_WATERMARK_OPACITY).", "DARKROOM_WATERMARK_OPACITY", imgproxy: ["WATERMARK_OPACITY"]) { i, c in
            if let opacity = try i.watermarkOpacity ?? i.env("WATERMARK_OPACITY").map({ text in
                guard let value = Double(text) else { throw ValidationError("DARKROOM_WATERMARK_OPACITY \(text): expected a number from 0 to 1") }
                return value
            }) {
                guard opacity.isFinite, (0...1).contains(opacity) else { throw ValidationError("--watermark-opacity \(opacity): expected 0 to 1") }
                c.watermarkOpacity = opacity
            }
        },
        ServeSetting("fallback-image-url", "A fallback image fetched as sources are, over --fallback-image (imgproxy's IMGPROXY_FALLBACK_IMAGE_URL; DARKROOM_FALLBACK_IMAGE_DATA takes the image itself, base64-encoded).", "DARKROOM_FALLBACK_IMAGE_URL", value: "URL", imgproxy: ["FALLBACK_IMAGE_URL"]) { i, c in
            if let text = i.fallbackImageUrl ?? i.env("FALLBACK_IMAGE_URL") { c.fallbackImageURL = try ServeCommand.sourceURL(text, flag: "--fallback-image-url") }
        },
        ServeSetting("fallback-image-http-code", "The status of an answer made with the fallback image; 0: the status the source's error has (default 200, as imgproxy's).", "DARKROOM_FALLBACK_IMAGE_HTTP_CODE", value: "CODE", range: 0...599, imgproxy: ["FALLBACK_IMAGE_HTTP_CODE"]) { i, c in
            if let code = try i.number(i.fallbackImageHttpCode, "fallback-image-http-code") {
                // An image goes with it: no informational status, none that has no body.
                guard code == 0 || ((200...599).contains(code) && code != 204 && code != 304) else {
                    throw ValidationError("--fallback-image-http-code \(code): expected 0 or a status that carries a body, 200 to 599 but 204 and 304")
                }
                c.fallbackImageStatus = code
            }
        },
        ServeSetting("fallback-image-ttl", "The max-age, in seconds, of an answer made with the fallback image; 0: --cache-max-age's, as imgproxy's (the default).", "DARKROOM_FALLBACK_IMAGE_TTL", value: "SECONDS", range: 0...Int.max, imgproxy: ["FALLBACK_IMAGE_TTL"]) { i, c in
            c.fallbackImageTTL = try i.number(i.fallbackImageTtl, "fallback-image-ttl")
        },
        ServeSetting("custom-response-header", "A header field added to every image answer, as NAME=VALUE; repeatable (imgproxy Pro's IMGPROXY_CUSTOM_RESPONSE_HEADERS).", "DARKROOM_CUSTOM_RESPONSE_HEADERS, divided by \\;", value: "NAME=VALUE") { i, c in
            c.customResponseHeaders = try ServeCommand.headerFields(i.customResponseHeader, i.env("CUSTOM_RESPONSE_HEADERS"), flag: "--custom-response-header",
                                                                reserved: ServeCommand.reservedFields)
        },
        ServeSetting("response-headers-passthrough", "Header fields of the origin's answer passed on to image answers, comma-separated; kept with the source and the result in every cache (imgproxy Pro's IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH).", "DARKROOM_RESPONSE_HEADERS_PASSTHROUGH", value: "NAMES", imgproxy: ["RESPONSE_HEADERS_PASSTHROUGH"]) { i, c in
            if let text = i.responseHeadersPassthrough ?? i.env("RESPONSE_HEADERS_PASSTHROUGH") {
                for name in text.commaList(lowercased: true) {
                    guard HTTPField.Name(name) != nil, !ServeCommand.reservedFields.contains(name), !["set-cookie", "cache-control", "expires", "vary"].contains(name) else {
                        throw ValidationError("--response-headers-passthrough: '\(name)' is not a field an answer may take from the origin (the answer's own, Set-Cookie, or Cache-Control and Expires, which --cache-control-passthrough passes)")
                    }
                    if !c.responseHeadersPassthrough.contains(name) { c.responseHeadersPassthrough.append(name) }
                }
            }
        },
        ServeSetting("custom-request-header", "A header field sent with every source request, as NAME=VALUE; repeatable (imgproxy Pro's IMGPROXY_CUSTOM_REQUEST_HEADERS).", "DARKROOM_CUSTOM_REQUEST_HEADERS, divided by \\;", value: "NAME=VALUE") { i, c in
            // Sent to origins: nor the fields the loader sets itself (validators,
            // Cookie), which a client's passed fields may not name either.
            c.customRequestHeaders = try ServeCommand.headerFields(i.customRequestHeader, i.env("CUSTOM_REQUEST_HEADERS"), flag: "--custom-request-header",
                                                               reserved: ServeCommand.reservedFields.union(ServerConfiguration.unpassableHeaders))
        },
        ServeSetting("info-preset", "A named preset for /info URLs, as NAME=OPTIONS; repeatable; where any is given, /info uses these and not --preset (imgproxy Pro's IMGPROXY_INFO_PRESETS).", "DARKROOM_INFO_PRESET", value: "NAME=OPTIONS", imgproxy: ["INFO_PRESETS"]) { i, c in
            let presets = i.infoPreset.isEmpty ? (i.env("INFO_PRESET")?.split(separator: ",").map(String.init) ?? []) : i.infoPreset
            if !presets.isEmpty {
                var named: [String: String] = [:]
                for entry in presets {
                    let parts = entry.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw ValidationError("--info-preset \(entry): expected NAME=OPTIONS") }
                    named[parts[0]] = parts[1]
                }
                do {
                    try InfoURL.check(presets: named)
                } catch {
                    throw ValidationError("--info-preset: \((error as? ImageURLError)?.message ?? "\(error)")")
                }
                c.infoPresets = named
            }
        },
        ServeSetting("allow-bypass-cache", "Let URLs carry bc (bypass_cache): each such request fetches and processes anew, so an attacker who can write URLs can load the origin (imgproxy Pro's IMGPROXY_ALLOW_BYPASS_CACHE).", "DARKROOM_ALLOW_BYPASS_CACHE", imgproxy: ["ALLOW_BYPASS_CACHE"]) { i, c in
            c.allowBypassCache = try i.flag(i.allowBypassCache, "ALLOW_BYPASS_CACHE")
        },
        ServeSetting("color-profiles-dir", "The folder of ICC profiles a URL's cp may name, read at start (imgproxy Pro's IMGPROXY_COLOR_PROFILES_DIR; default /usr/share/color/icc).", "DARKROOM_COLOR_PROFILES_DIR", value: "FOLDER", imgproxy: ["COLOR_PROFILES_DIR"]) { i, c in
            if let folder = i.colorProfilesDir ?? i.env("COLOR_PROFILES_DIR") {
                c.colourProfiles = try ServeCommand.colourProfiles(in: folder, required: true)
            } else {
                c.colourProfiles = (try? ServeCommand.colourProfiles(in: ServeCommand.defaultColourProfiles, required: false)) ?? [:]
            }
        },
        ServeSetting("max-chained-pipelines", "The most pipelines a URL may chain with -, 1 to 16 (imgproxy Pro's IMGPROXY_MAX_CHAINED_PIPELINES; default and 0: 16).", "DARKROOM_MAX_CHAINED_PIPELINES") { i, c in
            if let text = i.maxChainedPipelines.map(String.init) ?? i.env("MAX_CHAINED_PIPELINES") {
                guard let most = Int(text), (0...ImageURLOptions.maxPipelines).contains(most) else {
                    throw ValidationError("--max-chained-pipelines \(text): expected 0 to \(ImageURLOptions.maxPipelines)")
                }
                c.maxChainedPipelines = most
            }
        },
        ServeSetting("cache-tags-format", "The header fields a URL's ct tags go in: all, cloudfront (x-amz-meta-cache-tag), cloudflare (Cache-Tag) or none (imgproxy Pro's IMGPROXY_CACHE_TAGS_FORMAT; default all).", "DARKROOM_CACHE_TAGS_FORMAT", imgproxy: ["CACHE_TAGS_FORMAT"]) { i, c in
            if let text = i.cacheTagsFormat ?? i.env("CACHE_TAGS_FORMAT") {
                guard let format = ServerConfiguration.CacheTagsFormat(rawValue: text.lowercased()) else {
                    throw ValidationError("--cache-tags-format \(text): expected all, cloudfront, cloudflare or none")
                }
                c.cacheTagsFormat = format
            }
        },
        ServeSetting("info-gps", "Include a photo's GPS position in /info answers when its EXIF has one.", "DARKROOM_INFO_GPS") { i, c in
            c.infoIncludesGPS = i.infoGps || i.envFlag("INFO_GPS")
        },
        ServeSetting("only-presets", "Image URLs name presets only, in one segment (/img/SIG/thumb:sepia/plain/...).", "DARKROOM_ONLY_PRESETS", imgproxy: ["ONLY_PRESETS"]) { i, c in
            c.onlyPresets = i.onlyPresets || i.envFlag("ONLY_PRESETS")
            if c.onlyPresets, c.presets.isEmpty { throw ValidationError("--only-presets needs at least one --preset") }
        },
    ]
}

extension ServeCommand {
    /// A comma-separated list of bucket names, each checked (`*` too where
    /// `any`), as the S3 settings take them.
    static func buckets(_ text: String, flag: String, any: Bool) throws -> Set<String> {
        let buckets = Set(text.commaList())
        for bucket in buckets where !(any && bucket == "*") && !S3Location.isBucketName(bucket) {
            throw ValidationError("\(flag): \"\(bucket)\" is not a bucket name (3 to 63 of a-z, 0-9, '.', '-')")
        }
        return buckets
    }
}
