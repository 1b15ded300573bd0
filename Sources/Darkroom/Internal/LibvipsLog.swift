import DarkroomImaging
import Logging

/// Sends libvips' warnings to swift-log, at debug level under the label
/// `darkroom.libvips`: a damaged upload must not write to a server's
/// terminal, and its clear error goes to the caller anyway.
enum LibvipsLog {
    static let installed: Void = {
        let logger = Logger(label: "darkroom.libvips")
        _ = VipsRuntime.addWarningReceiver(VipsRuntime.WarningSink { domain, message in
            logger.debug("libvips warning", metadata: ["domain": "\(domain)", "message": "\(message)"])
        })
    }()
}
