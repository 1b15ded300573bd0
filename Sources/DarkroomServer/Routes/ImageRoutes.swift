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
    /// The fields every answer gets beside its own (CORS on these).
    let fields: FrontFields
    /// The fallback image as a source, keyed by its digest.
    let fallback: ImageSource?
    let logger: Logger

    init(pipeline: ImagePipeline, configuration: ServerConfiguration, connections: ConnectionWatch, logger: Logger = Logger(label: "darkroom")) {
        self.pipeline = pipeline
        self.logger = logger
        self.configuration = configuration
        self.connections = connections
        parsedURLs = ParsedURLCache()
        cacheControl = "public, max-age=\(configuration.cacheMaxAge)"
        fields = FrontFields(allowOrigin: configuration.allowOrigin, serverName: configuration.serverName)
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
            // The name is also what gives the answer, or the error, its
            // CORS fields (``FrontFieldsMiddleware``).
            context.coreContext.endpointPath.value = ImageRoutes.metricsRoute
            if request.method == .options {
                // A browser's preflight, answered as imgproxy answers it.
                return Response(status: .ok, headers: [.contentType: "text/plain"], body: ResponseBody(byteBuffer: ByteBuffer(string: " ")))
            }
            try routes.configuration.secret.check(request.headers[.authorization])
            return try await routes.respond(to: request, path: path, context: context)
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
        return answer(response, request: request, cacheControl: control, headers: parsed.headers(for: response.image))
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
        let headers = parsed.headers(for: response.image) + [(Self.sourceStatus, String(shown.httpStatus.code))]
        // As imgproxy: the fallback's own lifetime, else the images', never
        // past the URL's expiry, and one client's alone where its fields
        // went to the source.
        let age = configuration.fallbackImageTTL.flatMap { $0 > 0 ? $0 : nil } ?? configuration.cacheMaxAge
        var control = "public, max-age=\(age)"
        if let expires = parsed.expires {
            control = "public, max-age=\(min(age, max(0, Int(expires.timeIntervalSinceNow.rounded(.down)))))"
        }
        if case .urlWithHeaders = parsed.request.source { control = Self.privateCacheControl(control) }
        var fallbackAnswer = answer(response, request: request, cacheControl: control, headers: headers)
        // Its status: imgproxy's 200 by default, 0 for the source's own; a
        // 304 (the client has it) stays one.
        if fallbackAnswer.status == .ok {
            let code = configuration.fallbackImageStatus == 0 ? Int(shown.httpStatus.code) : configuration.fallbackImageStatus
            fallbackAnswer.status = HTTPResponse.Status(code: code)
        }
        return fallbackAnswer
    }

    /// Errors of the source itself, which a fallback image stands in for;
    /// not refusals, overload, or the URL's own mistakes.
    static let fallbackKinds: Set<DarkroomError.Kind> = [
        .httpStatus, .networkFailure, .timedOut, .tooManyRedirects, .notAnImage, .corruptImage, .emptyInput, .tooManyBytes, .tooManyPixels,
    ]

    /// The status the source's error would have had, on a fallback answer.
    static let sourceStatus = "Darkroom-Source-Status"
}
