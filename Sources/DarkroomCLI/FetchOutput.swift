import Darkroom
import Foundation

/// Where `darkroom fetch` writes its results: a folder, or a prefix in an
/// S3 bucket (`--out s3://BUCKET/PREFIX/`).
///
/// In S3 a row whose result is there already is skipped, so a run that was
/// killed halfway, run again, does only what is missing; each object is
/// written whole in one PUT, so no half-written result is ever there.
enum FetchOutput {
    case folder(URL)
    case s3(S3Client, prefix: String)

    var description: String {
        switch self {
        case .folder(let url): url.path
        case .s3(let client, let prefix): "s3://\(client.configuration.bucket)/\(prefix)"
        }
    }

    /// The names (without extension) that have a result already: none for
    /// a folder, whose rows are made again from the disk cache.
    func existingStems() async throws(S3Error) -> Set<String> {
        guard case .s3(let client, let prefix) = self else { return [] }
        var stems = Set<String>()
        for key in try await client.keys(under: prefix) {
            let name = key.dropFirst(prefix.count)
            // Results sit right under the prefix; summaries and originals
            // are not results.
            guard !name.contains("/"), !name.contains(".original."), let dot = name.lastIndex(of: ".") else { continue }
            stems.insert(String(name[..<dot]))
        }
        return stems
    }

    /// Writes one file or object; returns where it went, or why it could not.
    func write(_ data: Data, name: String, contentType: String) async -> Result<String, FetchWriteError> {
        switch self {
        case .folder(let folder):
            let path = folder.appendingPathComponent(name).path
            do {
                // File calls block: on a pool thread, not the cooperative pool.
                try await BlockingExecutor.shared.run { try AtomicFile.write(data, to: path) }
                return .success(path)
            } catch {
                return .failure(FetchWriteError(reason: "the result could not be written to \(folder.path)"))
            }
        case .s3(let client, let prefix):
            do {
                try await client.put(prefix + name, data: data, contentType: contentType)
                return .success("s3://\(client.configuration.bucket)/\(prefix)\(name)")
            } catch {
                return .failure(FetchWriteError(reason: error.description))
            }
        }
    }

    /// The shard's summary, next to the results: `_summary/shard-I-of-N.json`.
    func writeSummary(_ summary: FetchSummary) async throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data = try encoder.encode(summary)
        let name = "_summary/shard-\(summary.shard)-of-\(summary.shardCount).json"
        switch self {
        case .folder(let folder):
            try await BlockingExecutor.shared.run {
                try FileManager.default.createDirectory(at: folder.appendingPathComponent("_summary"), withIntermediateDirectories: true)
                try AtomicFile.write(data, to: folder.appendingPathComponent(name).path)
            }
        case .s3(let client, let prefix):
            try await client.put(prefix + name, data: data, contentType: "application/json")
        }
    }
}

struct FetchWriteError: Error {
    var reason: String
}

/// What one shard of a fetch did: rows done, failed, skipped.
struct FetchSummary: Sendable, Encodable {
    var shard: Int
    var shardCount: Int
    var rows: Int
    var done: Int
    var failed: Int
    var skipped: Int
}
