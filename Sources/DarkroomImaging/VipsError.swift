import Foundation
internal import CVips

/// An error reported by libvips, with its text copied at the point of failure.
///
/// libvips keeps one error buffer for the whole process, so when several
/// threads fail at once a message may be mixed with another's or missing:
/// decide what happened from where the call failed, and keep the text as
/// detail for people.
package struct VipsError: Error, Sendable, CustomStringConvertible {
    /// The libvips operation that failed, such as "jpegload_buffer".
    package var operation: String
    /// libvips' own message, on one line.
    package var message: String

    package init(operation: String, message: String) {
        self.operation = operation
        self.message = message
    }

    /// Copies and clears libvips' error buffer.
    static func fromBuffer(operation: String) -> VipsError {
        let text = String(cString: vips_error_buffer())
        vips_error_clear()
        let lines = text.split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return VipsError(operation: operation, message: lines.isEmpty ? "unknown libvips error" : lines.joined(separator: "; "))
    }

    package var description: String { "\(operation): \(message)" }
}
