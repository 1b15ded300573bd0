public import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    /// Writes `parts` one after the other as one file, by POSIX calls on
    /// the paths as given: Foundation's file calls stat each path and open
    /// a new file twice over (create, then open for writing), on every
    /// cold answer the disk cache keeps.
    static func write(_ parts: [Data], to path: String, through temporary: URL, durable: Bool) throws {
        let temporaryPath = temporary.path
        let fd = open(temporaryPath, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw failure(errno, temporaryPath) }
        var isOpen = true
        defer { if isOpen { close(fd) } }
        do {
            for part in parts { try writeAll(part, to: fd, path: temporaryPath) }
            if durable, fsync(fd) != 0 { throw failure(errno, temporaryPath) }
            // Closed once: a failed close has still released the descriptor.
            isOpen = false
            guard close(fd) == 0 else { throw failure(errno, temporaryPath) }
            guard rename(temporaryPath, path) == 0 else { throw failure(errno, path) }
        } catch {
            unlink(temporaryPath)
            throw error
        }
    }

    private static func writeAll(_ data: Data, to fd: Int32, path: String) throws {
        try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw failure(errno, path)
                }
                offset += written
            }
        }
    }

    private static func failure(_ code: Int32, _ path: String) -> CocoaError {
        let kind: CocoaError.Code = switch code {
        case EACCES, EPERM, EROFS: .fileWriteNoPermission
        case ENOSPC, EDQUOT: .fileWriteOutOfSpace
        case ENOENT: .fileNoSuchFile
        default: .fileWriteUnknown
        }
        return CocoaError(kind, userInfo: [NSFilePathErrorKey: path, NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)])
    }
}
