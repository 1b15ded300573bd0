import DarkroomImaging
public import Foundation

/// Answers written by an encoder that cannot be stopped mid-picture and
/// takes every core (x265 for HEIC; libaom for AVIF past the size where it
/// takes its slower mode): written in a child process (``command``, such
/// as `darkroom encode-image`), which reads the pixels as an uncompressed
/// PNG on its standard input and writes the answer, under an address-space
/// and CPU limit, with no socket, and killed at the run's deadline or when
/// its client leaves. Smaller AVIF answers, which end in moments, stay in
/// the calling process.
public struct EncodingChild: Sendable, Hashable, Codable {
    /// The executable and its first arguments; the format, settings and
    /// limits follow (see ``ImageEncoding/arguments(format:quality:effort:subsample:maxMemory:maxSeconds:)``).
    public var command: [String]
    /// The most memory the child may map, in bytes (2 GiB by default: an
    /// encoder's working set on noise is about 25 bytes a pixel).
    public var maxMemory = 2 << 30

    public init(command: [String], maxMemory: Int = 2 << 30) {
        self.command = command
        self.maxMemory = maxMemory
    }

    /// Whether an answer in `format` of `pixels` pixels is written in the child.
    static func writes(_ format: ImageFormat, pixels: Int) -> Bool {
        format == .heic || (format == .avif && pixels > 3_200_000)
    }
}

/// What the child process that writes an answer does, in that process.
public enum ImageEncoding {
    /// How the child ends; its exit status.
    public enum Outcome: Sendable, Equatable {
        /// The answer's bytes on standard output (0).
        case written(Data)
        /// The pixels could not be read or written; the reason (4).
        case failed(String)

        public var status: Int32 {
            switch self {
            case .written: 0
            case .failed: 4
            }
        }

        public var output: Data {
            switch self {
            case .written(let bytes): bytes
            case .failed(let reason): Data(reason.prefix(500).utf8)
            }
        }
    }

    /// The formats the child writes.
    public static let formats: Set<ImageFormat> = [.heic, .avif]

    /// The child's arguments after ``EncodingChild/command``.
    public static func arguments(format: ImageFormat, quality: Int, effort: Int, subsample: Int, maxMemory: Int, maxSeconds: Int) -> [String] {
        ["--format", format.rawValue, "--quality", "\(quality)", "--effort", "\(effort)", "--subsample", "\(subsample)",
         "--max-memory", "\(maxMemory)", "--max-seconds", "\(maxSeconds)"]
    }

    /// Writes `png` (the answer's pixels, as the parent computed them) in
    /// `format`. Call it only in a process of its own, with its limits set.
    public static func encode(_ png: Data, format: ImageFormat, quality: Int, effort: Int, subsample: Int) -> Outcome {
        guard formats.contains(format), (1...100).contains(quality), (0...9).contains(effort), (0...2).contains(subsample) else {
            return .failed("the format or a setting is out of range")
        }
        do {
            try VipsRuntime.start()
            return try withRawBytes(of: png) { raw throws(VipsError) -> Outcome in
                let image = try VImage.load(raw, loader: .png)
                let encoder: VImage.Encoder = format == .heic ? .heic(quality: quality)
                    : .avif(quality: quality, tuning: HEIFTuning(effort: effort, subsample: subsample))
                // In the child: its kernel limits bound it, the switch is never pulled.
                return .written(Data(try VipsKillSwitch().armed(image) { pass throws(VipsError) in try image.encoded(encoder, through: pass) }))
            }
        } catch {
            return .failed(error.message)
        }
    }
}
