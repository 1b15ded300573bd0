import Foundation

extension PhotoList {
    /// Reads a list from a file path or an http(s) URL.
    ///
    /// - Throws: ``DarkroomError/Kind/invalidList`` when it cannot be read or
    ///   parsed, saying what and where.
    public static func load(from location: String, loader: DataLoader? = nil) async throws(DarkroomError) -> PhotoList {
        if let url = URL(string: location), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme) {
            let owned = loader == nil ? DataLoader() : nil
            defer { if let owned { Task { try? await owned.shutdown() } } }
            let data: Data
            do {
                data = try await (loader ?? owned!).loadDocument(url, maxBytes: 10_000_000)
            } catch {
                throw invalid(location, "could not be fetched: \(error.reason)", underlying: error.underlying)
            }
            return try parse(data, origin: location)
        }
        let path = location.hasPrefix("file://") ? URL(string: location)?.path ?? location : location
        // On a pool thread: a list file can be large, or on a slow disk.
        let read = try? await BlockingExecutor.shared.run { () -> Result<Data, DarkroomError> in
            do {
                return .success(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                return .failure(invalid(location, "could not be read (\((error as NSError).localizedDescription))"))
            }
        }
        guard let read else { throw invalid(location, "could not be read (the I/O threads are shut down)") }
        return try parse(try read.get(), origin: location)
    }
}
