#if DARKROOM_TSAN_LOCKS
import DarkroomImaging

/// Under the thread sanitizer, a lock it can see; see `SanitizerMutex`.
typealias Mutex = SanitizerMutex
#endif
