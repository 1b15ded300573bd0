import Darkroom
import DarkroomImaging
import Foundation
import Hummingbird
import NIOCore

/// `GET /health` and `GET /metrics` (on the main address, or on its own
/// with `--metrics-bind`).
struct OperationsRoutes: Sendable {
    let processor: ImageProcessor
    let pipeline: ImagePipeline
    let connections: ConnectionWatch
    let metrics: ServerMetrics
    var parsedURLs: ParsedURLCache? = nil
    var connectionLimits: ConnectionLimits? = nil
    /// Whose memory-cache hits are handed to the series before they are read.
    var recorder: RequestRecorder? = nil

    /// A 2 x 2 PNG, made once: what the health check asks libvips to process.
    private static let probe: Data = {
        (try? RawPixels(width: 2, height: 2, filledWith: [200, 100, 50]).pngData()).map { Data($0) } ?? Data()
    }()

    func addHealth(to router: Router<ServerContext>) {
        router.get("/health") { _, _ in
            do {
                let result = try await processor.process(Self.probe, options: ProcessingOptions(operations: [.sepia(intensity: 0.8)], output: OutputOptions(format: .jpeg)))
                guard result.width == 2 else { throw DarkroomError.cancelled }
                // A shared cache that fails leaves the server answering (from
                // the origin): degraded, still 200, so it stays in rotation.
                var health = ["status": "ok", "libvips": VipsRuntime.version, "features": BuildFeatures.names.joined(separator: ",")]
                switch pipeline.sharedCache?.health {
                case nil: break
                case .ok: health["resultCache"] = "ok"
                case .degraded(let reason):
                    health["status"] = "degraded"
                    health["resultCache"] = reason
                }
                return try GalleryRoutes.json(health)
            } catch {
                throw RouteError(.serviceUnavailable, "libvips does not answer: \(error)")
            }
        }
    }

    func addMetrics(to router: Router<ServerContext>) {
        router.get("/metrics") { _, _ in
            recorder?.flushMemoryHits()
            metrics.recordMemory(of: pipeline)
            metrics.recordConnections(connections)
            metrics.recordFrontDoor(pipeline: pipeline, parsedURLs: parsedURLs, limits: connectionLimits)
            return Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                     body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.text())))
        }
    }
}
