import ArgumentParser
import Darkroom
import Foundation

/// `darkroom cache stats|prune|clear`: look after the disk cache.
struct CacheCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, prune or clear the disk cache.",
        subcommands: [Stats.self, Prune.self, Clear.self]
    )

    struct Location: ParsableArguments {
        @Option(name: .long, help: "Disk cache folder (default: $XDG_CACHE_HOME/darkroom or ~/.cache/darkroom).")
        var cacheDir: String?

        func open() throws -> DiskCache {
            let folder = cacheDir.map { URL(fileURLWithPath: $0) } ?? DiskCache.defaultFolder
            do {
                return try DiskCache(configuration: .init(folder: folder))
            } catch {
                throw ValidationError("--cache-dir \(folder.path): cannot open the cache (\((error as NSError).localizedDescription))")
            }
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries and bytes in the cache.")
        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let stats = cache.statistics
            print("folder   \(cache.configuration.folder.path)")
            print("entries  \(stats.count)")
            print("bytes    \(stats.totalCost) (\(ByteCountFormatter.string(fromByteCount: Int64(stats.totalCost), countStyle: .file)))")
            print("limit    \(cache.configuration.sizeLimit) (\(ByteCountFormatter.string(fromByteCount: Int64(cache.configuration.sizeLimit), countStyle: .file)))")
        }
    }

    struct Prune: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Evict the least recently used entries down to a size.")
        @OptionGroup var location: Location
        @Option(name: .long, help: "The size to prune to, in bytes (default: the cache's limit, 1 GiB).")
        var maxSize: Int?

        func validate() throws {
            if let maxSize, maxSize < 0 { throw ValidationError("--max-size must be 0 or more") }
        }

        func run() throws {
            let cache = try location.open()
            let freed = cache.prune(to: maxSize)
            let stats = cache.statistics
            print("freed \(freed) bytes; \(stats.count) entries, \(stats.totalCost) bytes left")
        }
    }

    struct Clear: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry.")
        @OptionGroup var location: Location

        func run() throws {
            let cache = try location.open()
            let before = cache.statistics.count
            try cache.removeAll()
            print("removed \(before) entries from \(cache.configuration.folder.path)")
        }
    }
}
