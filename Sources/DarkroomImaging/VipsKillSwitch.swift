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
    private let guarded = Locked(Guarded())
    /// How far the last armed evaluation got, in percent of its pixels, as
    /// libvips reports it. Safe to send: libvips' threads write it, and
    /// this class reads it, only with atomic C operations.
    private struct Percent: @unchecked Sendable { let pointer: UnsafeMutablePointer<Int32> }
    private let percent: Percent

    package init() {
        percent = Percent(pointer: .allocate(capacity: 1))
        percent.pointer.initialize(to: 0)
    }

    deinit { percent.pointer.deallocate() }

    /// How far the last evaluation armed with this switch got: 0 to 100
    /// percent of its pixels. A pulled switch shows where it stopped.
    package var progressPercent: Int {
        Int(darkroom_vips_progress_read(percent.pointer))
    }

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

    /// Runs `body` with `image` armed, so a pull stops it. `body` gets the
    /// pass that the calls computing pixels ask for.
    package func armed<T>(_ image: VImage, _ body: (PixelPass) throws(VipsError) -> T) throws(VipsError) -> T {
        darkroom_vips_enable_kill(image.pointer)
        darkroom_vips_watch_progress(image.pointer, percent.pointer)
        let alreadyPulled = guarded.withLock { g in
            g.state.armed = image.pointer
            return g.state.pulled
        }
        defer { guarded.withLock { $0.state.armed = nil } }
        if alreadyPulled { darkroom_vips_kill(image.pointer) }
        return try body(PixelPass())
    }
}

/// What every call that computes a chain's pixels asks for
/// (``VImage/inMemory(_:)``, ``VImage/storedPNG(_:strip:)``,
/// ``VImage/encoded(_:through:)``): made only by
/// ``VipsKillSwitch/armed(_:_:)``, so pixels outside the kill switch
/// (and the cost rules the run checks before it arms it) do not compile.
/// Inside this module, buffers already in memory (``RawPixels``) make their own.
package struct PixelPass: Sendable {
    init() {}
}
