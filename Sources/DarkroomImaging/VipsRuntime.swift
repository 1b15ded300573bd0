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
            let text = message.map { String(cString: $0) } ?? ""
            let sink = VipsRuntime.warningSink.withLock { $0 }
            sink?(domain.map { String(cString: $0) } ?? "VIPS", text)
        }
        return .success(())
    }()

    /// Receives libvips' warnings (a damaged file's "premature end of
    /// JPEG file", and the like) as (domain, message): they never go to the
    /// terminal. Darkroom passes them to its logger.
    package static let warningSink = Mutex<(@Sendable (String, String) -> Void)?>(nil)

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

    /// The libvips version, such as "8.14.1".
    package static var version: String {
        String(cString: vips_version_string())
    }
}
