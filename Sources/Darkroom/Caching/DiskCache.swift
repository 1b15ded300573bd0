import Crypto
public import Foundation
import Synchronization
import DarkroomImaging

/// A cache of data on disk that survives restarts and that a crash cannot
/// corrupt.
///
/// - Files are named by the SHA-256 of the key, whatever the key is, so no
///   URL can reach outside the folder.
/// - Each entry is written to a temporary file, then renamed into place: a
///   reader sees the whole old entry or the whole new one, and a process
///   killed mid-write leaves only a temporary file, never served and swept
///   away later.
/// - Each read checks the entry's key, length and checksum; a bad entry is
///   deleted and counts as a miss.
/// - The total size is kept under a limit by evicting the least recently
///   used entries (a hit refreshes the file's modification time).
/// - Several processes may share a folder: renames are atomic, and an entry
///   that another process evicted is simply a miss.
///
/// All calls do blocking file I/O: call them from a thread that may block
/// (the pipeline runs them on its I/O executor).
public final class DiskCache: Sendable {
    public struct Configuration: Sendable, Hashable {
        public var folder: URL
        /// The most the entries may take together, in bytes.
        public var sizeLimit: Int
        /// Flush each entry to the disk before it is renamed into place, so
        /// it survives a power cut too.
        public var durableWrites: Bool

        public init(folder: URL = DiskCache.defaultFolder, sizeLimit: Int = 1 << 30, durableWrites: Bool = false) {
            self.folder = folder
            self.sizeLimit = sizeLimit
            self.durableWrites = durableWrites
        }
    }

    /// `$XDG_CACHE_HOME/darkroom`, else `$HOME/.cache/darkroom`, else the
    /// user's home directory from the system's user database.
    public static var defaultFolder: URL {
        defaultFolder(environment: ProcessInfo.processInfo.environment)
    }

    /// The default folder for an environment: as the XDG base directory
    /// specification says, relative paths are ignored.
    static func defaultFolder(environment: [String: String]) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg).appendingPathComponent("darkroom")
        }
        // $HOME first: it is what the user set (Foundation reads the user
        // database for the uid, which ignores it).
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/darkroom")
        }
        return FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/darkroom")
    }

    public let configuration: Configuration
    let entriesFolder: URL
    let temporaryFolder: URL
    private let index: Locked<Index>

    /// What this process knows of the folder: each entry's size and last use.
    private struct Index {
        var loaded = false
        var files: [String: (size: Int, used: Date)] = [:]
        /// The two-letter folders this process has made.
        var folders: Set<String> = []
        var totalSize = 0
        var statistics = CacheStatistics()
    }

    /// Opens (and creates) the cache folder.
    ///
    /// - Throws: when the folder cannot be created.
    public init(configuration: Configuration = Configuration()) throws {
        self.configuration = configuration
        entriesFolder = configuration.folder.appendingPathComponent("v1")
        temporaryFolder = configuration.folder.appendingPathComponent("tmp")
        index = Locked(Index())
        for folder in [entriesFolder, temporaryFolder] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// The file name for a key: its SHA-256, in hex, under a two-letter folder.
    /// (Said to be no folder, so that making the URL does not stat it.)
    func fileURL(for key: String) -> URL {
        let name = DiskCacheFormat.fileName(for: key)
        return entriesFolder.appendingPathComponent(String(name.prefix(2)), isDirectory: true)
            .appendingPathComponent(name, isDirectory: false)
    }

    /// The entry for `key`, or nil when there is none or it is not sound.
    public func entry(for key: String) -> DiskCacheEntry? {
        loadIndexIfNeeded()
        let url = fileURL(for: key)
        guard let file = try? Data(contentsOf: url, options: .mappedIfSafe) else {
            index.withLock { $0.statistics.misses += 1 }
            return nil
        }
        switch DiskCacheFormat.decode(file, key: key) {
        case .success(let entry):
            let now = Date()
            try? FileManager.default.setAttributes([.modificationDate: now], ofItemAtPath: url.path)
            index.withLock { i in
                i.statistics.hits += 1
                i.files[url.lastPathComponent]?.used = now
            }
            return entry
        case .failure:
            // Damaged, truncated, or another key's: never served.
            try? FileManager.default.removeItem(at: url)
            index.withLock { i in
                i.statistics.misses += 1
                if let old = i.files.removeValue(forKey: url.lastPathComponent) { i.totalSize -= old.size }
            }
            return nil
        }
    }

    /// Stores `entry` under `key`, replacing any entry there, then evicts
    /// least recently used entries while the total is over the limit.
    public func store(_ entry: DiskCacheEntry, for key: String) throws {
        loadIndexIfNeeded()
        let url = fileURL(for: key)
        let parts = try DiskCacheFormat.encode(entry, key: key)
        let size = parts.reduce(0) { $0 + $1.count }
        let folder = url.deletingLastPathComponent()
        let temporary = temporaryFolder.appendingPathComponent("\(url.lastPathComponent).\(UInt64.random(in: 0...UInt64.max)).tmp",
                                                              isDirectory: false)
        // The two-letter folders are made once, not on every store; one
        // removed since (by `removeAll`, or by hand) is made again.
        if !index.withLock({ $0.folders.contains(folder.lastPathComponent) }) {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            index.withLock { _ = $0.folders.insert(folder.lastPathComponent) }
        }
        do {
            try AtomicFile.write(parts, to: url.path, through: temporary, durable: configuration.durableWrites)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            for made in [folder, temporaryFolder] { try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true) }
            try AtomicFile.write(parts, to: url.path, through: temporary, durable: configuration.durableWrites)
        }
        index.withLock { i in
            if let old = i.files[url.lastPathComponent] { i.totalSize -= old.size }
            i.files[url.lastPathComponent] = (size, Date())
            i.totalSize += size
        }
        evictIfNeeded(limit: configuration.sizeLimit)
    }

    public func removeEntry(for key: String) {
        let url = fileURL(for: key)
        try? FileManager.default.removeItem(at: url)
        index.withLock { i in
            if let old = i.files.removeValue(forKey: url.lastPathComponent) { i.totalSize -= old.size }
        }
    }

    /// Removes every entry.
    public func removeAll() throws {
        try? FileManager.default.removeItem(at: entriesFolder)
        try FileManager.default.createDirectory(at: entriesFolder, withIntermediateDirectories: true)
        index.withLock { i in
            i.files = [:]
            i.folders = []
            i.totalSize = 0
            i.statistics.count = 0
            i.statistics.totalCost = 0
        }
    }

    /// Rescans the folder, sweeps stale temporary files, and evicts down to
    /// `limit` (default: the configured limit). Returns the bytes freed.
    @discardableResult
    public func prune(to limit: Int? = nil) -> Int {
        index.withLock { $0.loaded = false }
        loadIndexIfNeeded()
        let before = index.withLock { $0.totalSize }
        evictIfNeeded(limit: limit ?? configuration.sizeLimit)
        return before - index.withLock { $0.totalSize }
    }

    /// Entries and bytes on disk now, with this process's hits and misses.
    public var statistics: CacheStatistics {
        loadIndexIfNeeded()
        return index.withLock { i in
            var s = i.statistics
            s.count = i.files.count
            s.totalCost = i.totalSize
            return s
        }
    }

    /// Hits and misses so far, with the entries and bytes as far as the
    /// index has been read: never reads the folder, so it may be called
    /// from any thread.
    public var statisticsSoFar: CacheStatistics {
        index.withLock { i in
            var s = i.statistics
            s.count = i.files.count
            s.totalCost = i.totalSize
            return s
        }
    }

    /// Reads the folder's index now, if it has not been read (the first
    /// lookup or store would otherwise).
    public func loadIndex() {
        loadIndexIfNeeded()
    }

    // MARK: - Index and eviction

    private func loadIndexIfNeeded() {
        guard !index.withLock({ $0.loaded }) else { return }
        var files: [String: (size: Int, used: Date)] = [:]
        var total = 0
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey, .isRegularFileKey]
        if let walker = FileManager.default.enumerator(at: entriesFolder, includingPropertiesForKeys: keys) {
            for case let url as URL in walker {
                guard let values = try? url.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else { continue }
                let size = values.fileSize ?? 0
                files[url.lastPathComponent] = (size, values.contentModificationDate ?? .distantPast)
                total += size
            }
        }
        sweepTemporaryFiles(olderThan: 3600)
        index.withLock { i in
            i.files = files
            i.totalSize = total
            i.loaded = true
        }
    }

    /// Temporary files left by a process that died mid-write.
    private func sweepTemporaryFiles(olderThan seconds: TimeInterval) {
        let cutoff = Date().addingTimeInterval(-seconds)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder.path)) ?? []
        for name in names {
            let url = temporaryFolder.appendingPathComponent(name)
            if let date = (try? url.resourceValues(forKeys: [.contentModificationDateKey]))?.contentModificationDate, date < cutoff {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }

    private func evictIfNeeded(limit: Int) {
        let victims: [String] = index.withLock { i in
            guard i.totalSize > limit else { return [] }
            // Down to 90% of the limit, so eviction does not run on every store.
            let target = limit / 10 * 9
            var chosen: [String] = []
            for (name, file) in i.files.sorted(by: { $0.value.used < $1.value.used }) {
                guard i.totalSize > target else { break }
                chosen.append(name)
                i.totalSize -= file.size
                i.files[name] = nil
                i.statistics.evictions += 1
            }
            return chosen
        }
        for name in victims {
            try? FileManager.default.removeItem(at: entriesFolder.appendingPathComponent(String(name.prefix(2))).appendingPathComponent(name))
        }
    }
}
