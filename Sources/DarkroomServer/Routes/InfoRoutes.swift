import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /info/{signature}/{options}/{source}`: what a source image is, as
/// JSON (``ImageInfo``): format, upright size, orientation, frames, EXIF,
/// dominant colour, BlurHash and ThumbHash, and what imgproxy Pro's info
/// options ask (``InfoURL``). Signed as image URLs are; image options are
/// accepted and do not change the answer, which describes the source.
struct InfoRoutes: Sendable {
    let pipeline: ImagePipeline
    let configuration: ServerConfiguration
    let processor: ImageProcessor
    let connections: ConnectionWatch

    func add(to router: Router<ServerContext>) {
        router.get("/info/**") { request, context in
            try await respond(to: request, context: context)
        }
    }

    /// Errors are thrown as they are: a ``DarkroomError`` answers with its
    /// own status and reason (it is an `HTTPResponseError`).
    func respond(to request: Request, context: ServerContext) async throws -> Response {
        try configuration.secret.check(request.headers[.authorization])
        let path = String(request.uri.path.dropFirst("/info".count))
        let url = try Self.verifiedURL(path, configuration: configuration)
        // Nil: the source's bytes are not the ones the URL's hashsum names.
        let answer: ImageInfo?
        do throws(DarkroomError) {
            answer = try await connections.run(on: context.channel) { () async throws(DarkroomError) -> ImageInfo? in
                let source = try await pipeline.originalData(for: .url(url.source), bypassingCaches: url.imageOptions.bypassCache)
                if let expected = url.expectedHashsum, Hashsum.hex(of: source.data, expected.kind) != expected.hex { return nil }
                return try await processor.info(of: source.data, limits: url.imageOptions.limits(over: configuration.limits),
                                                includeGPS: configuration.infoIncludesGPS, options: url.info,
                                                objectDetection: configuration.objectDetection)
            }
        } catch {
            guard url.sourceIsEncrypted else { throw error }
            context.logger.debug("encrypted source failed", metadata: ["error": "\(error)"])
            throw EncryptedSource.hiding(error)
        }
        guard let info = answer else {
            // As imgproxy Pro: a mismatch is a 422.
            throw RouteError(.unprocessableContent, "the source's \(url.expectedHashsum?.kind.rawValue ?? "") hashsum is not the one the URL gives")
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=\(configuration.cacheMaxAge)"
        // A URL's cache tags, as on image answers (Pro's `ct` on /info).
        for field in configuration.cacheTagsFormat.fields(url.imageOptions.cacheTags) {
            if let name = HTTPField.Name(field.name) { headers[name] = field.value }
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(info))))
    }

    /// The URL, its signature checked first as for image URLs.
    static func verifiedURL(_ path: String, configuration: ServerConfiguration) throws(RouteError) -> InfoURL {
        try ImageRoutes.verifySignature(path, configuration: configuration)
        var context = ImageURLOptions.Context(presets: configuration.infoPresets ?? configuration.presets,
                                              allowsSecurityOptions: configuration.allowSecurityOptions)
        context.allowsBypassCache = configuration.allowBypassCache
        context.allowedInfoOptions = configuration.allowedInfoOptions
        do {
            return try InfoURL(path: path, context: context, sources: configuration.sourceRules)
        } catch {
            if error.message == EncryptedSource.reason { throw RouteError(.notFound, EncryptedSource.reason) }
            throw RouteError(.notFound, "bad info URL: \(error.message)")
        }
    }
}
