public import Foundation

/// The shared test corpus: real photos and the seed's photo list, in
/// `../shared/corpus` beside the checkout.
public enum Corpus {
    /// The package's root folder.
    public static let packageRoot: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url
    }()

    public static let root: URL = {
        if let override = ProcessInfo.processInfo.environment["DARKROOM_CORPUS"] {
            return URL(fileURLWithPath: override)
        }
        return packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpus")
    }()

    public static let photosFolder = root.appendingPathComponent("photos")

    /// Every corpus photo, sorted by name.
    public static var photos: [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: photosFolder.path)) ?? []
        return names.filter { $0.hasSuffix(".jpg") }.sorted().map { photosFolder.appendingPathComponent($0) }
    }

    public static func photo(_ name: String) -> URL {
        photosFolder.appendingPathComponent(name)
    }

    public static func data(_ name: String) throws -> Data {
        try Data(contentsOf: photo(name))
    }
}
