import DarkroomImaging

/// Stops one processing run from another thread: checked between steps, and
/// pulled into libvips while it computes pixels.
package final class KillSwitch: Sendable {
    let vips = VipsKillSwitch()

    package init() {}

    package func pull() { vips.pull() }

    package var isPulled: Bool { vips.isPulled }

    /// Throws ``DarkroomError/Kind/cancelled`` once the switch is pulled.
    func check() throws(DarkroomError) {
        if isPulled { throw .cancelled }
    }
}
