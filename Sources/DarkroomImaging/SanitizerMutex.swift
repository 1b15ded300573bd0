#if DARKROOM_TSAN_LOCKS
import Foundation

/// Only in builds for the thread sanitizer (`make sanitize`): the standard
/// library's `Mutex` takes its lock on Linux with futex calls that the
/// sanitizer does not see, so it reports every access made under it as a
/// race (two threads appending to an array under one `Mutex` are reported
/// too). This lock, with the same `withLock`, is a pthread mutex, which
/// it sees; ``Locked`` names it in those builds.
package final class SanitizerMutex<Value: ~Copyable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: consuming Value) {
        self.value = value
    }

    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

#endif
