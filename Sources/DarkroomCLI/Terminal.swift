import Foundation

/// Messages for the person at the terminal.
enum Terminal {
    static func error(_ message: String) {
        FileHandle.standardError.write(Data("darkroom: \(message)\n".utf8))
    }

    /// Whether standard output is a terminal (progress bars) or not (plain lines).
    static var isInteractive: Bool { isatty(STDOUT_FILENO) != 0 }
}
