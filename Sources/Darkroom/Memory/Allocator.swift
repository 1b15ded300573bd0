import DarkroomImaging
#if canImport(Glibc)
import Glibc
#endif

/// The C allocator's settings, for long-running processes.
///
/// glibc's malloc gives each thread that contends for it an arena of its own
/// (up to eight per core) and keeps what is freed in them. An image server's
/// many short-lived buffers of a few megabytes then leave the resident size
/// at its peak for good. Fewer arenas and a trim after bursts keep it close
/// to what is in use.
public enum Allocator {
    /// Limits malloc to `arenas` arenas. Call it first thing, before other
    /// threads allocate.
    public static func limitArenas(to arenas: Int = 2) {
        MallocSettings.limitArenas(to: max(1, arenas))
    }

    /// Serves blocks of `bytes` or more (sources, decode buffers) from their
    /// own mappings, returned to the system as soon as they are freed. Call
    /// it first thing, with ``limitArenas(to:)``.
    public static func mapLargeBlocks(over bytes: Int = 1 << 20) {
        MallocSettings.mapLargeBlocks(over: bytes)
    }

    /// Returns freed memory at the top of the heap and in free pages to the
    /// system.
    public static func returnFreeMemory() {
        MallocSettings.trim()
    }

    /// This process's resident memory in bytes, from /proc (0 where there
    /// is none). /proc is no disk: the read does not block.
    public static func residentBytes() -> Int {
        #if canImport(Glibc)
        let fd = open("/proc/self/statm", O_RDONLY)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 128)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return 0 }
        let fields = String(decoding: buffer[..<count], as: UTF8.self).split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        #else
        return 0
        #endif
    }
}
