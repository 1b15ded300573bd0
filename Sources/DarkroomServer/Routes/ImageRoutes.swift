import Crypto
import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /img/...`: imgproxy-compatible image URLs.
struct ImageRoutes: Sendable {
    let pipeline: ImagePipeline
    let configuration: ServerConfiguration

    func add(to router: Router<ServerContext>) {
        router.get("/img/**") { request, context in
            await self.respond(to: request, context: context)
        }
    }

    func respond(to request: Request, context: ServerContext) async -> Response {
        // The path as sent, percent-encoding and all: the signature covers it.
        let path = String(request.uri.path.dropFirst("/img".count))
        let url: ImageURL
        do {
            url = try ImageURL(path: path, presets: configuration.presets)
        } catch {
            return errorResponse(.badRequest, "bad image URL: \(error.message)")
        }
        if let signature = configuration.signature, !signature.verify(url.signature, path: url.signedPath) {
            return errorResponse(.forbidden, "the URL's signature is missing or wrong")
        }

        let (format, negotiated): (ImageFormat?, Bool)
        switch Self.format(asked: url.options.format ?? url.requestedExtension, accept: request.headers[.accept]) {
        case .success(let answer): (format, negotiated) = answer
        case .failure(let error): return errorResponse(.badRequest, error.message)
        }
        var options = url.options.processing(format: format)
        options.limits = configuration.limits
        let imageRequest = ImageRequest(source: .url(url.source), options: options, priority: .normal)
        var extra = HTTPFields()
        if negotiated { extra[.vary] = "Accept" }

        let response: ImageResponse
        if let hit = await pipeline.cachedImage(for: imageRequest) {
            response = hit
        } else {
            if pipeline.filtrationQueue.counts.waiting >= configuration.maxWaitingFiltrations {
                extra[.retryAfter] = "2"
                return errorResponse(.tooManyRequests, "the server is busy: too much image work is waiting; try again shortly", headers: extra)
            }
            do throws(DarkroomError) {
                response = try await Self.untilDisconnect(context.channel) { () async throws(DarkroomError) in
                    try await pipeline.image(for: imageRequest)
                }
            } catch {
                return errorResponse(error.httpStatus, error.description, headers: extra)
            }
        }
        // A cachebuster changes the URL (so CDNs miss), not the image.
        return Self.answer(response, key: imageRequest.processedKey, request: request, maxAge: configuration.cacheMaxAge, headers: extra)
    }

    /// Runs `work`; when the client's connection closes first, cancels it
    /// (the pipeline goes on for any other waiter).
    static func untilDisconnect<T: Sendable>(_ channel: any Channel, _ work: @escaping @Sendable () async throws(DarkroomError) -> T) async throws(DarkroomError) -> T {
        let task = Task { () async throws -> T in try await work() }
        channel.closeFuture.whenComplete { _ in task.cancel() }
        do {
            return try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch {
            throw error as? DarkroomError ?? .cancelled
        }
    }

    /// The answer: the image with caching headers, or 304 when the client's
    /// copy is current.
    static func answer(_ response: ImageResponse, key: String, request: Request, maxAge: Int, headers extra: HTTPFields) -> Response {
        let etag = Self.etag(key: key, response: response)
        var headers = extra
        headers[.eTag] = etag
        headers[.cacheControl] = "public, max-age=\(maxAge)"
        if let ifNoneMatch = request.headers[.ifNoneMatch],
           ifNoneMatch.split(separator: ",").contains(where: { $0.trimmingCharacters(in: .whitespaces) == etag || $0.trimmingCharacters(in: .whitespaces) == "*" }) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = response.image.format.mimeType
        headers[.contentLength] = "\(response.image.data.count)"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: response.image.data)))
    }

    /// A strong ETag from what makes the bytes: the request's key and the
    /// source's own validators.
    static func etag(key: String, response: ImageResponse) -> String {
        let material = "\(key)|\(response.sourceETag ?? "")|\(response.sourceLastModified ?? "")|\(response.image.data.count)"
        let digest = SHA256.hash(data: Data(material.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return "\"\(digest)\""
    }

    /// The output format: the one asked for; or, for none or `auto`, the
    /// best the client accepts (AVIF, then WebP), else the source's.
    static func format(asked: String?, accept: String?) -> Result<(ImageFormat?, negotiated: Bool), ImageURLError> {
        if let asked, asked != "auto" {
            guard let format = ImageFormat(name: asked), format.canEncode else {
                return .failure(.init("cannot write '\(asked)' images (jpg, png, webp, avif, or auto)"))
            }
            return .success((format, false))
        }
        let accept = accept?.lowercased() ?? ""
        if accept.contains("image/avif") { return .success((.avif, true)) }
        if accept.contains("image/webp") { return .success((.webp, true)) }
        return .success((nil, true))
    }
}
