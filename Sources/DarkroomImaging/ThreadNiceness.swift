internal import CVips

/// The nice value of the calling thread: a dedicated thread doing heavy
/// work raises its own, so that when both want a core the kernel prefers
/// threads that answer quickly (a server's event loops).
package enum ThreadNiceness {
    /// Sets the calling thread's nice value, clamped to 0...19 (a thread
    /// may only lower its priority without privilege).
    package static func set(_ nice: Int) {
        _ = darkroom_thread_set_nice(Int32(min(19, max(0, nice))))
    }
}
