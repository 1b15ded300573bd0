public import Foundation

/// Writes files so that a reader never sees half of one: to a temporary file
/// beside the target, then renamed over it.
public enum AtomicFile {
    /// - Parameter durable: also flush to the disk before the rename, so the
    ///   file survives a power cut, not only a crash of the process. It costs
    ///   a disk flush per file.
    public static func write(_ data: Data, to path: String, durable: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UInt32.random(in: 0...UInt32.max)).tmp")
        try write(data, to: path, through: temporary, durable: durable)
    }

    /// Writes through a temporary file of the caller's choosing, which must be
    /// on the same file system as `path` for the rename to be atomic.
    static func write(_ data: Data, to path: String, through temporary: URL, durable: Bool) throws {
        try write([data], to: path, through: temporary, durable: durable)
    }

    /// Writes `parts` one after the other as one file.
    static func write(_ parts: [Data], to path: String, through temporary: URL, durable: Bool) throws {
        let url = URL(fileURLWithPath: path)
        guard FileManager.default.createFile(atPath: temporary.path, contents: nil) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: temporary.path])
        }
        do {
            let handle = try FileHandle(forWritingTo: temporary)
            defer { try? handle.close() }
            for part in parts { try handle.write(contentsOf: part) }
            if durable { try handle.synchronize() }
            try handle.close()
            guard rename(temporary.path, url.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw error
        }
    }
}
