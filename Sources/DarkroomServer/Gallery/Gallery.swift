import Darkroom
import Foundation

/// The gallery: the photo list it shows, how it processes rows, and its viewers.
final class Gallery: Sendable {
    let list: PhotoList
    let pipeline: ImagePipeline
    /// Each row's filtered image: the seed's sepia, at a size a page shows.
    let options = ProcessingOptions(
        operations: [.resize(Resize(width: 480, height: 360, mode: .fit)), .sepia(intensity: ImageOperation.defaultSepiaIntensity)],
        output: OutputOptions(format: .jpeg, quality: 82))
    let viewers: ViewerRegistry

    init(list: PhotoList, pipeline: ImagePipeline) {
        self.list = list
        self.pipeline = pipeline
        self.viewers = ViewerRegistry()
    }

    /// The bundled sample list: `local:///photos/...` URLs, read in process
    /// from the bundled sample folder.
    static func sampleList() throws -> PhotoList {
        guard let url = Bundle.module.url(forResource: "samples/list", withExtension: "json") else {
            throw ServerSetupError("the bundled sample list is missing from the server's resources")
        }
        return try PhotoList.parse(try Data(contentsOf: url), origin: "the bundled sample list")
    }

    static var samplesFolder: String { Bundle.module.resourceURL!.appendingPathComponent("samples").path }
    static var staticFolder: String { Bundle.module.resourceURL!.appendingPathComponent("gallery").path }

    func request(row: Int) -> ImageRequest? {
        guard list.entries.indices.contains(row), let url = list.entries[row].url else { return nil }
        return ImageRequest(source: .url(url), options: options, priority: .high)
    }

    /// What the status strip shows.
    func status() -> GalleryStatus {
        let status = pipeline.status
        let (downloads, filtrations) = (status.downloads, status.processing)
        return GalleryStatus(
            downloadsRunning: downloads.running, downloadsWaiting: downloads.waiting, downloadsCancelled: downloads.cancelled,
            filtrationsRunning: filtrations.running, filtrationsWaiting: filtrations.waiting, filtrationsCancelled: filtrations.cancelled,
            filtrationsFinished: filtrations.finished,
            memoryHits: status.memoryCache.hits, diskHits: status.diskCache?.hits ?? 0,
            viewers: viewers.count)
    }
}

/// What `GET /api/status` answers, and the gallery's status strip shows:
/// the queues' counts, cache hits and viewers.
public struct GalleryStatus: Codable, Sendable {
    public var downloadsRunning, downloadsWaiting, downloadsCancelled: Int
    public var filtrationsRunning, filtrationsWaiting, filtrationsCancelled, filtrationsFinished: Int
    public var memoryHits, diskHits: Int
    public var viewers: Int
}
