#if DARKROOM_TSAN_LOCKS
/// The package's one lock around a value: the standard library's `Mutex`,
/// or, in builds for the thread sanitizer (`make sanitize`), a lock it can
/// see (``SanitizerMutex``). Every module uses this name, so that switch is
/// made here once.
package typealias Locked<Value: ~Copyable> = SanitizerMutex<Value>
#else
package import Synchronization

/// The package's one lock around a value: the standard library's `Mutex`,
/// or, in builds for the thread sanitizer (`make sanitize`), a lock it can
/// see (``SanitizerMutex``). Every module uses this name, so that switch is
/// made here once.
package typealias Locked<Value: ~Copyable> = Mutex<Value>
#endif
