internal import CVips
package import Synchronization

/// Starts libvips once per process.
///
/// libvips must be initialised before any other call. The settings are those
/// of image servers built on it: no operation cache, one internal thread per
/// call, and every loader blocked except JPEG, PNG, WebP, HEIF/AVIF, TIFF and
/// GIF. Call ``start()`` as often as you like; only the first call works.
package enum VipsRuntime {
    private static let started: Result<Void, VipsError> = {
        if darkroom_vips_start("darkroom") != 0 {
            return .failure(VipsError.fromBuffer(operation: "vips_init"))
        }
        darkroom_vips_route_log { domain, _, message in
            VipsRuntime.deliverWarning(domain: domain.map { String(cString: $0) } ?? "VIPS",
                                       message: message.map { String(cString: $0) } ?? "")
        }
        return .success(())
    }()

    /// Who receives libvips' warnings (a damaged file's "premature end of
    /// JPEG file", and the like) as (domain, message): they never go to the
    /// terminal. Darkroom adds one that passes them to its logger; a test
    /// adds its own beside it, and removes it, without taking the
    /// logger's (or another test's) away.
    private static let warningReceivers = Locked<(next: UInt64, all: [UInt64: WarningSink])>((1, [:]))

    /// A receiver of warnings, in a struct: a bare function type kept in a
    /// generic container is converted ("reabstracted") on every `inout`
    /// access, and `withLock` gives `inout` access, so each read of a bare
    /// closure wrapped the stored one in two more thunks. Every warning
    /// made the next one deeper, until the stack overflowed (a long fuzzing
    /// run found it). A struct's function is kept as it is.
    package struct WarningSink: Sendable {
        package var receive: @Sendable (_ domain: String, _ message: String) -> Void

        package init(_ receive: @escaping @Sendable (_ domain: String, _ message: String) -> Void) {
            self.receive = receive
        }
    }

    /// Adds a receiver of every warning from now on; returns what
    /// ``removeWarningReceiver(_:)`` takes.
    package static func addWarningReceiver(_ sink: WarningSink) -> UInt64 {
        warningReceivers.withLock { receivers in
            let id = receivers.next
            receivers.next += 1
            receivers.all[id] = sink
            return id
        }
    }

    package static func removeWarningReceiver(_ id: UInt64) {
        _ = warningReceivers.withLock { $0.all.removeValue(forKey: id) }
    }

    /// Hands a warning to every receiver: what libvips' log handler does.
    /// The receivers are called after the lock is let go.
    package static func deliverWarning(domain: String, message: String) {
        let receivers = warningReceivers.withLock { Array($0.all.values) }
        for receiver in receivers { receiver.receive(domain, message) }
    }

    /// Starts libvips, or returns the error the first start gave.
    package static func start() throws(VipsError) {
        try started.get()
    }

    /// Lets libvips' JPEG XL loader and saver run, which it marks untrusted
    /// and Darkroom blocks at start. Process-wide; Darkroom calls it only
    /// for work whose limits allow JPEG XL, and hands libvips JPEG XL
    /// bytes only then.
    package static func allowJPEGXL() {
        _ = jpegXLAllowed
    }

    private static let jpegXLAllowed: Void = darkroom_vips_allow_jxl()

    /// Lets libvips' SVG loader (librsvg) run, from memory only; called by
    /// a run whose limits allow it.
    package static func allowSVG() {
        _ = svgAllowed
    }

    private static let svgAllowed: Void = darkroom_vips_allow_svg()

    /// Lets libvips' PDF loader (poppler) run, from memory only. Only the
    /// child process that draws one page calls it, never a server.
    package static func allowPDF() {
        _ = pdfAllowed
    }

    private static let pdfAllowed: Void = darkroom_vips_allow_pdf()

    /// The libvips version, such as "8.14.1".
    package static var version: String {
        String(cString: vips_version_string())
    }
}
