public import Foundation

/// Small images named for what they exercise, in Tests/Fixtures (made from
/// the corpus by scripts/make-fixtures). Most are 240 x 160 with a pure red
/// 40 x 40 block in the top-left corner, so tests can tell which way up an
/// image came out.
public enum Fixtures {
    public static let folder = Corpus.packageRoot.appendingPathComponent("Tests/Fixtures")

    public static func url(_ name: String) -> URL {
        folder.appendingPathComponent(name)
    }

    public static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    /// A folder of its own in the test process's scratch folder, which goes
    /// when the process exits; a caller done with it early may remove it.
    public static func temporaryFolder(_ label: String = "darkroom-tests") throws -> URL {
        let url = try ScratchFolder.url
            .appendingPathComponent("\(label)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Every regular file under `folder`, at any depth.
    public static func regularFiles(under folder: URL) -> [URL] {
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        return (walker?.allObjects as? [URL] ?? []).filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }
}
