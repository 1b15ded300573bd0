import Darkroom
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// `GET /info/{signature}/{options}/{source}`: what a source image is, as
/// JSON (``ImageInfo``): format, upright size, orientation, frames, EXIF,
/// dominant colour, BlurHash and ThumbHash. The URL is signed and parsed as
/// an image URL; processing options are accepted and do not change the
/// answer, which describes the source.
struct InfoRoutes: Sendable {
    let pipeline: ImagePipeline
    let configuration: ServerConfiguration
    let processor: ImageProcessor
    let connections: ConnectionWatch

    func add(to router: Router<ServerContext>) {
        router.get("/info/**") { request, context in
            await respond(to: request, context: context)
        }
    }

    func respond(to request: Request, context: ServerContext) async -> Response {
        let path = String(request.uri.path.dropFirst("/info".count))
        let url: ImageURL
        switch ImageRoutes.verifiedURL(path, configuration: configuration) {
        case .success(let verified): url = verified
        case .failure(let refusal): return refusal.response
        }
        do {
            let info = try await connections.run(on: context.channel) { () async throws(DarkroomError) -> ImageInfo in
                let source = try await pipeline.originalData(for: .url(url.source))
                return try await processor.info(of: source.data, limits: configuration.limits, includeGPS: configuration.infoIncludesGPS)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "public, max-age=\(configuration.cacheMaxAge)"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(info))))
        } catch let error as DarkroomError {
            return error.response(headers: [:])
        } catch {
            return errorResponse(.internalServerError, "the answer could not be written: \(error)")
        }
    }
}
