import Synchronization
internal import CVips

/// Stops a running libvips evaluation from another thread.
///
/// The worker arms the switch with the image it is about to compute; a
/// cancellation handler on any thread may then pull it. libvips sees the
/// flag at its next tile and fails the call with "killed".
package final class VipsKillSwitch: Sendable {
    private struct State {
        // The image being computed; only touched under the lock, and released
        // by the worker only after it has disarmed the switch.
        var armed: UnsafeMutablePointer<CVips.VipsImage>?
        var pulled = false
    }

    // Safe to send: the pointer is only read or written with the lock held.
    private struct Guarded: @unchecked Sendable { var state = State() }
    private let guarded = Mutex(Guarded())

    package init() {}

    /// Whether the switch has been pulled.
    package var isPulled: Bool {
        guarded.withLock { $0.state.pulled }
    }

    /// Pulls the switch: the armed image, if any, stops computing.
    package func pull() {
        guarded.withLock { g in
            g.state.pulled = true
            if let image = g.state.armed {
                darkroom_vips_kill(image)
            }
        }
    }

    /// Runs `body` with `image` armed, so a pull stops it.
    package func armed<T>(_ image: VImage, _ body: () throws(VipsError) -> T) throws(VipsError) -> T {
        darkroom_vips_enable_kill(image.pointer)
        let alreadyPulled = guarded.withLock { g in
            g.state.armed = image.pointer
            return g.state.pulled
        }
        defer { guarded.withLock { $0.state.armed = nil } }
        if alreadyPulled { darkroom_vips_kill(image.pointer) }
        return try body()
    }
}
