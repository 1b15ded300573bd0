import Crypto
import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1

/// Image URLs as imgproxy reads them, at the root (or under a path prefix)
/// and under `/img/` (``ImagePaths``).
struct ImageRoutes: Sendable {
    let pipeline: ImagePipeline
    let configuration: ServerConfiguration
    let parsedURLs: ParsedURLCache
    let connections: ConnectionWatch
    /// `public, max-age=N`, made once.
    let cacheControl: String
    /// The CORS header fields of every answer to an image URL, errors too
    /// (a page's script reads the status only with them), made once.
    let corsFields: [(String, String)]
    /// The fallback image as a source, keyed by its digest.
    let fallback: ImageSource?
    let dates = HTTPDate()
    let logger: Logger

    init(pipeline: ImagePipeline, configuration: ServerConfiguration, connections: ConnectionWatch, logger: Logger = Logger(label: "darkroom")) {
        self.pipeline = pipeline
        self.logger = logger
        self.configuration = configuration
        self.connections = connections
        parsedURLs = ParsedURLCache()
        cacheControl = "public, max-age=\(configuration.cacheMaxAge)"
        corsFields = configuration.allowOrigin.map { [("Access-Control-Allow-Origin", $0), ("Access-Control-Allow-Methods", "GET, OPTIONS")] } ?? []
        fallback = configuration.fallbackImage.map { data in
            .data(data, key: "fallback:" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined())
        }
    }

    /// Image URLs are answered by a middleware, before the router: an image
    /// URL has a dozen path segments, and resolving them in the router's trie
    /// cost more than the rest of a cache hit.
    func add(to router: Router<ServerContext>) {
        router.add(middleware: Middleware(routes: self))
    }

    /// The route's name for metrics, as the router would have set it: one
    /// name for every image URL, at the root or under /img/.
    static let metricsRoute = "/img/**"

    struct Middleware: RouterMiddleware {
        let routes: ImageRoutes

        func handle(_ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response) async throws -> Response {
            guard [.get, .head, .options].contains(request.method),
                  let path = routes.configuration.imagePaths.imageURL(in: request.uri.path[...])
            else {
                return try await next(request, context)
            }
            context.coreContext.endpointPath.value = ImageRoutes.metricsRoute
            var response: Response
            if request.method == .options {
                // A browser's preflight, answered as imgproxy answers it.
                response = Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: " ")))
            } else {
                do {
                    try routes.configuration.secret.check(request.headers[.authorization])
                    response = try await routes.respond(to: request, path: path, context: context)
                } catch {
                    // A refused URL's answer carries the CORS fields too.
                    var refused = error
                    for (name, value) in routes.corsFields { refused.headers[HTTPField.Name(name)!] = value }
                    throw refused
                }
            }
            for (name, value) in routes.corsFields { response.headers[HTTPField.Name(name)!] = value }
            return response
        }
    }


    /// - Parameter path: the image URL from the slash before its signature
    ///   on, as sent (percent-encoding and all: the signature covers it).
    /// - Throws: ``RouteError`` for a URL refused before any image work;
    ///   an image's own ``DarkroomError`` is answered here, since the
    ///   fallback image stands in for some.
    func respond(to request: Request, path: Substring, context: ServerContext) async throws(RouteError) -> Response {
        let acceptHeader = request.headers[.accept]
        let hints = configuration.clientHints ? ClientHints { request.headers[HTTPField.Name($0)!] } : nil
        let cacheKey = ParsedURLCache.Key(target: request.head.path ?? "", accept: acceptHeader ?? "", hints: hints?.key ?? "")
        var parsed: ParsedURLCache.Entry
        if let known = parsedURLs.entry(for: cacheKey) {
            parsed = known
        } else {
            parsed = try parse(String(path), accept: AcceptedFormats(acceptHeader), hints: hints, logger: context.logger)
            parsedURLs.store(parsed, for: cacheKey)
        }
        if let url = parsed.request.source.url, let passed = passedHeaders(for: url, request: request) {
            // Cached apart for each set of them: the origin may answer each
            // client its own image.
            parsed.request.source = ImageSource.urlWithHeaders(url, headers: passed)
            parsed.processedKey = parsed.request.processedKey
        }
        let response: ImageResponse
        if !parsed.request.bypassesCache, let hit = pipeline.memoryCachedImage(processedKey: parsed.processedKey) {
            response = hit
        } else {
            // Disk and shared hits are answered even when overloaded: the
            // request is admitted `unlessOverloaded`.
            var imageRequest = parsed.request
            do {
                if !parsed.watermarkSources.isEmpty {
                    // Fetched unless the result is cached already.
                    let marks = parsed.watermarkSources
                    imageRequest = try await connections.run(on: context.channel) { [imageRequest] () async throws(DarkroomError) in
                        // Bypassing the caches, the answer is made anew: the marks too.
                        if !imageRequest.bypassesCache, await pipeline.cachedImage(for: imageRequest) != nil { return imageRequest }
                        return try await withWatermarks(from: marks, imageRequest)
                    }
                }
                response = try await connections.run(on: context.channel) { [imageRequest] () async throws(DarkroomError) in
                    try await pipeline.image(for: imageRequest)
                }
            } catch {
                // The server's own failures, in the request's log lines; a
                // stranger's bad sources stay at debug level. An encrypted
                // source is named at debug level only, and never answered.
                let shown = parsed.sourceIsEncrypted ? EncryptedSource.hiding(error) : error
                context.logger.log(level: error.httpStatus.code >= 500 ? .warning : .debug, "image request failed",
                                   metadata: ["status": "\(error.httpStatus.code)", "error": "\(shown)"])
                if parsed.sourceIsEncrypted, shown != error {
                    context.logger.debug("encrypted source failed", metadata: ["error": "\(error)"])
                }
                var headers = HTTPFields()
                if parsed.negotiated { headers[.vary] = "Accept" }
                // The fallback stands in by the error itself; what it says of
                // the source is what may be shown.
                if let answer = await fallbackAnswer(for: error, showing: shown, request: request, parsed: parsed, imageRequest: imageRequest,
                                                     context: context) {
                    return answer
                }
                return shown.response(headers: headers)
            }
        }
        RequestTrace.span?.attributes["darkroom.cache"] = response.cacheType?.rawValue ?? "none"
        // A cachebuster changes the URL (so CDNs miss), not the image.
        // An answer made with a client's own fields is that client's: no
        // shared cache in front keeps it for another.
        var control = cacheControl(expires: parsed.expires, response: response).value
        if case .urlWithHeaders = parsed.request.source { control = Self.privateCacheControl(control) }
        return answer(response, request: request, cacheControl: control, headers: parsed.headers(for: response.image.format))
    }

    /// The header fields of the client's request that go to `source`: its
    /// cookies where the cookie rules send them, and the headers the server
    /// passes through; nil for none.
    func passedHeaders(for source: URL, request: Request) -> [PassedHeader]? {
        var passed: [PassedHeader] = []
        if let passthrough = configuration.cookiePassthrough,
           // Hummingbird keeps the Host field as the request's authority.
           let cookies = passthrough.cookies(for: source, field: { $0 == "host" ? request.head.authority : request.headers[HTTPField.Name($0)!] }) {
            passed.append(PassedHeader(name: "Cookie", value: cookies))
        }
        for name in configuration.requestHeadersPassthrough {
            guard let field = HTTPField.Name(name) else { continue }
            let values = request.headers[values: field]
            if !values.isEmpty { passed.append(PassedHeader(name: name, value: values.joined(separator: ", "))) }
        }
        return passed.isEmpty ? nil : passed
    }

    /// `request` with the bytes of the watermarks at `urls` (`wmu`, or the
    /// server's), each fetched as a source is, by the same rules, and laid
    /// in the steps that name it by its key.
    private func withWatermarks(from urls: [URL], _ request: ImageRequest) async throws(DarkroomError) -> ImageRequest {
        var request = request
        for url in urls {
            let data: SourceData
            do {
                data = try await pipeline.originalData(for: .url(url))
            } catch {
                throw DarkroomError(error.kind, "the watermark image (wmu) could not be had: \(error.reason)", underlying: error.underlying,
                                    statusCode: error.statusCode)
            }
            let key = ImageURLOptions.watermarkKey(for: url)
            request.options.operations = request.options.operations.map { operation in
                guard case .watermark(var watermark) = operation, case .image(let placeholder) = watermark.content, placeholder.key == key
                else { return operation }
                watermark.content = .image(WatermarkImage(data: data.data, key: key))
                return .watermark(watermark)
            }
        }
        return request
    }

    /// The fallback image with the URL's options, in place of a source that
    /// cannot be had; nil when there is none, the error is not the
    /// source's, or the fallback fails too.
    /// `shown`: the error as the answer may tell it (its status in
    /// ``sourceStatus``).
    private func fallbackAnswer(for error: DarkroomError, showing shown: DarkroomError, request: Request, parsed: ParsedURLCache.Entry,
                                imageRequest: ImageRequest, context: ServerContext) async -> Response? {
        // The URL's own fallback, else the server's (each fetched as
        // sources are), else the server's file.
        guard let fallback = parsed.fallbackSource.map(ImageSource.url) ?? fallback, Self.fallbackKinds.contains(error.kind),
              !error.reason.hasPrefix("the watermark image") else { return nil }
        let substitute = {
            var request = imageRequest
            request.source = fallback
            return request
        }()
        guard let response = try? await connections.run(on: context.channel, { () async throws(DarkroomError) in
            try await pipeline.image(for: substitute)
        }) else { return nil }
        let headers = parsed.headers(for: response.image.format) + [(Self.sourceStatus, String(shown.httpStatus.code))]
        return answer(response, request: request, cacheControl: "no-store", headers: headers)
    }

    /// Errors of the source itself, which a fallback image stands in for;
    /// not refusals, overload, or the URL's own mistakes.
    static let fallbackKinds: Set<DarkroomError.Kind> = [
        .httpStatus, .networkFailure, .timedOut, .tooManyRedirects, .notAnImage, .corruptImage, .emptyInput, .tooManyBytes, .tooManyPixels,
    ]

    /// The status the source's error would have had, on a fallback answer.
    static let sourceStatus = "Darkroom-Source-Status"

    /// The URL after `/img` or `/info`, its signature checked first: a client
    /// without it learns nothing of the options and presets from the errors
    /// that parsing gives.
    static func verifiedURL(_ path: String, configuration: ServerConfiguration, hints: ClientHints? = nil) throws(RouteError) -> ImageURL {
        try verifySignature(path, configuration: configuration)
        var context = ImageURLOptions.Context(presets: configuration.presets, allowsSecurityOptions: configuration.allowSecurityOptions,
                                              allowedOptions: configuration.allowedOptions)
        context.allowsBypassCache = configuration.allowBypassCache
        context.maxPipelines = configuration.maxChainedPipelines
        context.clientHints = hints
        do {
            return try ImageURL(path: path, context: context, onlyPresets: configuration.onlyPresets, sources: configuration.sourceRules)
        } catch {
            // An encrypted source that does not decrypt reads as every other
            // failure to have one.
            if error.message == EncryptedSource.reason { throw RouteError(.notFound, EncryptedSource.reason) }
            // As imgproxy: a URL that does not parse names no image, 404.
            throw RouteError(.notFound, "bad image URL: \(error.message)")
        }
    }

    /// Throws unless one of the server's keys signed `path` (when signing
    /// is on).
    static func verifySignature(_ path: String, configuration: ServerConfiguration) throws(RouteError) {
        guard !configuration.signatures.isEmpty else { return }
        guard let (signature, signedPath) = ImageURL.split(path),
              configuration.signatures.contains(where: { $0.verify(signature, path: signedPath) })
        else { throw .badSignature }
    }

    /// Parses, verifies and negotiates a URL not seen before.
    /// - Parameter logger: the request's, so its warnings carry its id.
    private func parse(_ path: String, accept: AcceptedFormats, hints: ClientHints?, logger: Logger) throws(RouteError) -> ParsedURLCache.Entry {
        let url = try Self.verifiedURL(path, configuration: configuration, hints: hints)
        var (format, negotiated): (ImageFormat?, Bool) = (nil, false)
        // A raw answer is the source's bytes, whatever is asked or accepted.
        let asked = url.options.format ?? url.requestedExtension
        // imgproxy Pro's `best`: the smallest of the formats the client takes.
        let best = !url.options.raw && (asked?.lowercased() == "best" || asked == nil && configuration.bestFormatByDefault)
        if best {
            negotiated = true
        } else if !url.options.raw {
            switch Self.format(asked: asked, accept: accept, negotiation: configuration.negotiation) {
            case .success(let answer): (format, negotiated) = answer
            case .failure(let error):
                // A format imgproxy knows but this server does not write is
                // imgproxy's 422; a name no one knows, a bad URL.
                let known = Self.unwritableFormats.contains(asked?.lowercased() ?? "")
                throw RouteError(known ? .unprocessableContent : .notFound, known ? error.message : "bad image URL: \(error.message)")
            }
        }
        // `wm` without an image of the server's, text or `wmu` is no step,
        // as imgproxy skips it.
        for warning in url.options.warnings { logger.warning("\(warning)", metadata: ["url": "\(path)"]) }
        let processing = { (options: ImageURLOptions) in
            options.processing(format: format, watermark: configuration.watermark, encoder: configuration.encoder,
                               watermarkURL: configuration.watermarkURL, watermarkOpacity: configuration.watermarkOpacity)
        }
        var options = processing(url.options)
        if let name = url.options.colourProfileName {
            options.output.colourProfile = try Self.colourProfile(named: name, profiles: configuration.colourProfiles)
        }
        // Chained pipelines: each one's steps in turn, on the one before's result.
        if let pipelines = url.pipelines, !url.options.raw {
            options.operations = pipelines.flatMap { processing($0).operations }
        }
        options.objectDetection = configuration.objectDetection
        if best {
            options.output.best = true
            options.output.bestComplexityThreshold = configuration.bestFormatComplexityThreshold
            options.output.bestMaxPixels = configuration.bestFormatMaxPixels
        }
        if format == nil, !url.options.raw {
            // The source's format only if the client takes it.
            options.output.acceptedFormats = accept.accepted
        }
        // As imgproxy: an SVG source asked without a format is answered as SVG.
        let askedByName = asked.map { $0 != "auto" } ?? false
        options.output.keepsVectors = !askedByName && !configuration.alwaysRasterizeSVG
        if negotiated, let format, !format.animates, accept.accepted?.contains(.webp) ?? true {
            // AVIF chosen by Accept cannot animate here: an animated GIF or
            // WebP stays animated, as WebP, for a client that takes it.
            options.output.animationFormat = .webp
        }
        options.limits = url.options.limits(over: configuration.limits)
        var request = ImageRequest(source: .url(url.source), options: options, priority: .normal, admission: .unlessOverloaded)
        request.bypassesCache = url.options.bypassCache
        // As imgproxy: always named, after the source unless `fn` says; an
        // encrypted source's name is not shown.
        let named = url.sourceIsEncrypted ? ContentDisposition.hiddenSourceName : ContentDisposition.defaultName(for: url.source)
        let disposition = ContentDisposition(name: url.options.filename ?? named, attachment: url.options.returnAttachment)
        return .init(request: request, processedKey: request.processedKey, negotiated: negotiated,
                     varyByHints: configuration.clientHints, expires: url.options.expires,
                     disposition: disposition,
                     watermarkSources: Self.watermarkSources(of: url.pipelines ?? [url.options], server: configuration.watermarkURL),
                     sourceIsEncrypted: url.sourceIsEncrypted, fallbackSource: url.options.fallbackImageURL ?? configuration.fallbackImageURL,
                     customHeaders: configuration.customResponseHeaders + configuration.cacheTagsFormat.fields(url.options.cacheTags))
    }

    /// libvips' built-in sRGB and CMYK, or one of the server's profiles.
    static func colourProfile(named name: String, profiles: [String: String]) throws(RouteError) -> ColourProfile {
        switch name.lowercased() {
        case "srgb": return .srgb
        case "cmyk": return .cmyk
        default:
            guard let path = profiles[name] else {
                throw RouteError(.notFound, "bad image URL: option 'cp': no colour profile '\(name.prefix(60))' here (srgb, cmyk\(profiles.isEmpty ? "" : ", or one of the server's \(Set(profiles.values).count)"))")
            }
            return .file(path: path, name: name)
        }
    }

    /// The watermarks to fetch for these pipelines' `wm` steps: each one's
    /// `wmu`, else the server's URL, where no text stands in; each once.
    static func watermarkSources(of pipelines: [ImageURLOptions], server: URL?) -> [URL] {
        var urls: [URL] = []
        for options in pipelines where options.watermark != nil && options.watermarkText == nil {
            if let url = options.watermarkURL ?? server, !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    /// The answer: the image with caching headers, or 304 when the client's
    /// copy is current. The body is the cached buffer itself, not a copy.
    func answer(_ response: ImageResponse, request: Request, cacheControl: String, headers extra: [(String, String)]) -> Response {
        let conditions = Conditions(ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince])
        let (status, fields, body) = answerParts(response, conditions: conditions, cacheControl: cacheControl, headers: extra)
        var headers = HTTPFields()
        headers.reserveCapacity(fields.count)
        for (name, value) in fields {
            if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
        }
        return Response(status: .init(code: status), headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }

    /// A request's conditions: its `If-None-Match` and `If-Modified-Since`.
    struct Conditions {
        var ifNoneMatch: String?
        var ifModifiedSince: String?
    }

    /// The status, header fields and body of an answer, for Hummingbird's
    /// route and for ``CachedImageHandler`` alike. `Last-Modified` is the
    /// source's, as imgproxy passes it on; a 304 when `If-None-Match` names
    /// the ETag or, without it (RFC 9110), when `If-Modified-Since` is not
    /// before the source's `Last-Modified`.
    func answerParts(_ response: ImageResponse, conditions: Conditions, cacheControl: String,
                     headers extra: [(String, String)]) -> (status: Int, fields: [(String, String)], body: ByteBuffer?) {
        let etag = response.etag
        var fields = extra
        fields.reserveCapacity(extra.count + 7 + response.sourceHeaders.count)
        // The origin's fields the server passes on, as it sent them.
        for header in response.sourceHeaders { fields.append((header.name, header.value)) }
        fields.append(("ETag", etag))
        fields.append(("Cache-Control", cacheControl))
        let lastModified = configuration.usesLastModified ? response.sourceLastModified.flatMap { HTTPDate.isValid($0) ? $0 : nil } : nil
        if let lastModified { fields.append(("Last-Modified", lastModified)) }
        if let ifNoneMatch = conditions.ifNoneMatch {
            if Self.matches(ifNoneMatch, etag: etag) { return (304, fields, nil) }
        } else if let since = conditions.ifModifiedSince.flatMap(HTTPDate.parse), let modified = lastModified.flatMap(HTTPDate.parse),
                  modified <= since {
            return (304, fields, nil)
        }
        fields.append(("Content-Type", response.image.format.mimeType))
        fields.append(("Content-Length", String(response.image.byteCount)))
        return (200, fields, response.image.bytes)
    }

    /// The answer to a GET of an image URL seen before whose image is in the
    /// memory cache, or nil for anything else; with the `Date`, `Server` and
    /// `X-Request-ID` fields that Hummingbird and ``RequestIDMiddleware`` add
    /// to the route's answers. In NIO's own HTTP/1
    /// types: ``CachedImageHandler`` sits in front of the conversion to
    /// Hummingbird's, so a hit pays for neither conversion.
    func cachedAnswer(to request: HTTPRequestHead, newID: () -> String = RequestID.next) -> (head: HTTPResponseHead, body: ByteBuffer?)? {
        // Only image URLs are in the parsed-URL cache: the route stores them.
        guard request.method == .GET, request.isKeepAlive else { return nil }
        // Without the secret, the router refuses it.
        guard configuration.secret.admits(request.headers["authorization"].first) else { return nil }
        // A client's cookies or passed headers may make the answer its own:
        // the route decides.
        if configuration.cookiePassthrough != nil, request.headers.contains(name: "cookie") { return nil }
        if configuration.requestHeadersPassthrough.contains(where: { request.headers.contains(name: $0) }) { return nil }
        let accept = request.headers["accept"]
        // More than one Accept field is joined by the route; rare enough to leave to it.
        let hints = configuration.clientHints ? ClientHints { request.headers[$0].first }.key : ""
        guard accept.count <= 1,
              let stored = parsedURLs.stored(for: ParsedURLCache.Key(target: request.uri, accept: accept.first ?? "", hints: hints)),
              !stored.entry.request.bypassesCache,
              let hit = pipeline.memoryCachedImage(processedKey: stored.entry.processedKey)
        else { return nil }
        let ifNoneMatch = request.headers["if-none-match"]
        let ifModifiedSince = request.headers["if-modified-since"].first
        var status = 200
        var headers: HTTPHeaders
        var body: ByteBuffer?
        if ifNoneMatch.isEmpty, ifModifiedSince == nil, let head = usualHead(stored, hit) {
            headers = head.headers
            body = hit.image.bytes
        } else {
            let conditions = Conditions(ifNoneMatch: ifNoneMatch.isEmpty ? nil : ifNoneMatch.joined(separator: ","), ifModifiedSince: ifModifiedSince)
            let fields: [(String, String)]
            (status, fields, body) = answerParts(hit, conditions: conditions, cacheControl: cacheControl(expires: stored.entry.expires, response: hit).value,
                                                 headers: stored.entry.headers(for: hit.image.format))
            headers = hitFields(fields)
        }
        headers.add(name: "Date", value: dates.now)
        headers.add(name: RequestID.header, value: RequestID.id(carried: request.headers[RequestID.header].first, new: newID))
        return (HTTPResponseHead(version: request.version, status: HTTPResponseStatus(statusCode: status), headers: headers), body)
    }

    /// A hit's fields from ``answerParts(_:conditions:cacheControl:headers:)``
    /// with CORS and `Server`, the fields that Hummingbird and the CORS
    /// middleware add to the route's answers.
    private func hitFields(_ fields: [(String, String)]) -> HTTPHeaders {
        var headers = HTTPHeaders(fields)
        headers.add(contentsOf: corsFields)
        headers.add(name: "Server", value: ServerConfiguration.serverName)
        return headers
    }

    /// The fields of the usual hit on `hit` under `stored`'s URL: kept from
    /// an earlier hit, or made now and kept; nil where they cannot be kept.
    private func usualHead(_ stored: ParsedURLCache.Stored, _ hit: ImageResponse) -> HitHead? {
        if let head = stored.hitHead.load() { return head.fits(hit) ? head : nil }
        let control = cacheControl(expires: stored.entry.expires, response: hit)
        guard !control.countsDown else { return nil }
        let (_, fields, _) = answerParts(hit, conditions: Conditions(), cacheControl: control.value,
                                         headers: stored.entry.headers(for: hit.image.format))
        let head = stored.hitHead.storeIfNil(HitHead(for: hit, headers: hitFields(fields)))
        return head.fits(hit) ? head : nil
    }

    /// Cache-Control for an answer, in imgproxy's order: the server's
    /// max-age cut so that no cache keeps the answer past the URL's own
    /// expiry (`exp`); else, with passthrough, the origin's `Cache-Control`
    /// as it sent it, or its `Expires` still ahead as a max-age; else the
    /// server's max-age. `countsDown` where the value was read from the
    /// clock (an expiry's), so that it is made for each answer, never kept.
    func cacheControl(expires: Date?, response: ImageResponse, now: Date? = nil) -> (value: String, countsDown: Bool) {
        // The clock is read only where an expiry needs it (not on a usual hit).
        if let expires {
            let left = max(0, Int(expires.timeIntervalSince(now ?? Date()).rounded(.down)))
            return (left < configuration.cacheMaxAge ? "public, max-age=\(left)" : cacheControl, true)
        }
        if configuration.cacheControlPassthrough {
            if let origin = response.sourceCacheControl, !origin.isEmpty { return (origin, false) }
            if let expires = response.sourceExpires.flatMap(HTTPDate.parse) {
                let left = expires - Int((now ?? Date()).timeIntervalSince1970)
                return (left > 0 ? "public, max-age=\(left)" : cacheControl, true)
            }
        }
        return (cacheControl, false)
    }

    /// `Cache-Control` for one client's answer: `public` made `private`
    /// (or `private` added), the rest kept.
    static func privateCacheControl(_ value: String) -> String {
        let directives = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0.lowercased() != "public" && $0.lowercased() != "private" }
        return (["private"] + directives).joined(separator: ", ")
    }

    /// Whether an If-None-Match list names `etag` (or is `*`).
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        ifNoneMatch.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == etag || tag == "*" || tag == "W/" + etag
        }
    }

    /// Formats imgproxy names that Darkroom reads, or knows, but does not write.
    static let unwritableFormats: Set<String> = ["pdf"]

    /// The output format: the one asked for; or, for none or `auto`, AVIF
    /// or WebP when the client names it, else nil (the source's, if the
    /// client takes it).
    static func format(asked: String?, accept: AcceptedFormats,
                       negotiation: FormatNegotiation = FormatNegotiation()) -> Result<(ImageFormat?, negotiated: Bool), ImageURLError> {
        if let asked, asked != "auto" {
            // SVG is answered for SVG sources only (the run refuses others).
            guard let format = ImageFormat(name: asked), format.canEncode || format == .svg else {
                return .failure(.init("cannot write '\(asked)' images (jpg, png, webp, avif, gif, tiff, jxl, heic, bmp, ico, or auto)"))
            }
            // An enforced format answers whatever the URL names, as imgproxy's ENFORCE_*.
            if format != .svg, let enforced = negotiation.enforced(for: accept) { return .success((enforced, true)) }
            return .success((format, false))
        }
        return .success((negotiation.automatic(for: accept), true))
    }
}
