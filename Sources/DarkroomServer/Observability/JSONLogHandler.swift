#if canImport(Glibc)
import Glibc
#endif
import Foundation
public import Logging
import Synchronization
import DarkroomImaging

/// Log lines as log collectors read them: one JSON object per line, with
/// `time` (RFC 3339, UTC, milliseconds), `level`, `logger`, `message` and
/// every metadata field at the top level (`request_id` among them, in a
/// request's lines). `darkroom serve --log-format json` writes these to
/// standard error.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String
    private let output: Output

    /// Where the lines go: standard error, or a closure (for tests).
    public enum Destination: Sendable {
        case standardError
        case lines(@Sendable (String) -> Void)
    }

    public init(label: String, destination: Destination = .standardError, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.output = Output(destination)
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { _, new in new } }
        if let extra = event.metadata { fields.merge(extra) { _, new in new } }
        var line = "{\"time\":\"\(Self.timestamp())\",\"level\":\"\(event.level.rawValue)\",\"logger\":"
        Self.appendString(label, to: &line)
        line += ",\"message\":"
        Self.appendString(event.message.description, to: &line)
        // The four names above are the line's own; a field of the same
        // name is kept under a prefix rather than written twice.
        for key in fields.keys.sorted() {
            line += ","
            Self.appendString(["time", "level", "logger", "message"].contains(key) ? "metadata.\(key)" : key, to: &line)
            line += ":"
            Self.append(fields[key]!, to: &line)
        }
        line += "}\n"
        output.write(line)
    }

    static func append(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text): appendString(text, to: &line)
        case .stringConvertible(let value): appendString(value.description, to: &line)
        case .array(let values):
            line += "["
            for (index, value) in values.enumerated() {
                if index > 0 { line += "," }
                append(value, to: &line)
            }
            line += "]"
        case .dictionary(let fields):
            line += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                append(fields[key]!, to: &line)
            }
            line += "}"
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped,
    /// so no message (a URL a stranger wrote, say) can end the line early
    /// or forge a field.
    static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F || (0x2028...0x2029).contains(scalar.value):
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }

    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = now.tv_sec
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let milliseconds = Int(now.tv_nsec / 1_000_000)
        let fraction = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(fraction)Z"
    }

    /// One write per line, under one lock for the process's standard
    /// error (every handler writes there, whichever logger made it), so
    /// lines from many threads never interleave.
    private final class Output: Sendable {
        let destination: Destination
        static let standardErrorLock = Locked(())

        init(_ destination: Destination) { self.destination = destination }

        func write(_ line: String) {
            switch destination {
            case .lines(let receive): receive(line)
            case .standardError:
                let bytes = Array(line.utf8)
                Self.standardErrorLock.withLock { _ in
                    bytes.withUnsafeBytes { buffer in
                        var offset = 0
                        while offset < buffer.count {
                            let written = Glibc.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                            if written > 0 { offset += written } else if written < 0 && errno == EINTR { continue } else { break }
                        }
                    }
                }
            }
        }
    }
}

extension JSONLogHandler {
    /// The log formats `--log-format` takes.
    public enum Format: String, Sendable, CaseIterable {
        case text, json
    }
}
