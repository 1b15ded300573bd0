public import Foundation

/// The seed's photo list (../shared/corpus/ClassicPhotos.plist), with its
/// URLs pointed at a test origin instead of 127.0.0.1:8089.
public enum SeedList {
    public static func text(port: Int) throws -> String {
        let original = try String(contentsOf: Corpus.root.appendingPathComponent("ClassicPhotos.plist"), encoding: .utf8)
        return original.replacingOccurrences(of: "http://127.0.0.1:8089/", with: "http://127.0.0.1:\(port)/")
    }

    /// Writes the list for `origin` into `folder` and returns its path.
    public static func write(for origin: OriginServer, in folder: URL) throws -> String {
        let url = folder.appendingPathComponent("ClassicPhotos.plist")
        try text(port: origin.port).write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// The ten photos the list names correctly, by row name.
    public static let goodNames = ["Aqua", "Dune", "Fresh Flower", "Garden", "Green Meadow", "Lady Bird", "Storm", "Two Wings", "Wood", "Yellow Flower"]
    public static let wrongNames = ["Missing Photo", "Not A Photo"]
}
