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

    /// Serves blocks of `bytes` or more from their own mappings, returned
    /// to the system as soon as they are freed, and keeps glibc from raising
    /// that threshold after each large free. Call it first thing, with
    /// ``limitArenas(to:)``.
    ///
    /// 32 MiB (glibc's own ceiling) keeps a photo's download and decode
    /// buffers on the heap, where the next request reuses them: a 1 MiB
    /// threshold mapped each anew, and faulting those pages in was 7% of a
    /// cold JPEG answer's CPU (docs/benchmarks.md).
    public static func mapLargeBlocks(over bytes: Int = 32 << 20) {
        MallocSettings.mapLargeBlocks(over: bytes)
    }

    /// Keeps up to `bytes` free at the top of each heap for the next request
    /// instead of returning it after every free; the idle trim
    /// (``returnFreeMemory()``) gives it back once work stops.
    public static func keepFreeTop(upTo bytes: Int = 8 << 20) {
        MallocSettings.keepFreeTop(upTo: bytes)
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
