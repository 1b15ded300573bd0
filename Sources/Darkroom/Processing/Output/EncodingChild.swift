package import DarkroomImaging
public import Foundation

/// Answers written by an encoder that cannot be stopped mid-picture, past
/// the size where its worst picture (noise) takes longer than a moment:
/// x265 for HEIC (always: it takes every core); libaom for AVIF past 3.2
/// megapixels, where it takes its slower mode; cgif with libimagequant for
/// GIF past 250,000 pixels (a megapixel of noise is quantised in about a
/// second); libwebp for WebP past 2 megapixels (16 of noise take about five
/// seconds). Written in a child process (``command``, such as
/// `darkroom encode-image`), which reads the pixels as an uncompressed
/// PNG on its standard input and writes the answer, under an address-space
/// and CPU limit, with no socket, and killed at the run's deadline or when
/// its client leaves. Smaller answers, which end in moments, stay in the
/// calling process.
public struct EncodingChild: Sendable, Hashable, Codable {
    /// The executable and its first arguments; the format, settings and
    /// limits follow (see ``ImageEncoding``).
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
        switch format {
        case .heic: true
        case .avif: pixels > 3_200_000
        case .gif: pixels > 250_000
        case .webp: pixels > 2_000_000
        default: false
        }
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
    public static let formats: Set<ImageFormat> = [.heic, .avif, .gif, .webp]

    /// The child's arguments after ``EncodingChild/command``: the encoder
    /// with its settings (as JSON), whether the metadata the PNG carries is
    /// written on, an animation's frames, and the limits.
    /// `copyright`: the EXIF copyright the answer keeps alone, which a PNG
    /// cannot carry as a field; the child sets it again. A source's text,
    /// so joined to its option: a value that looks like an option stays
    /// a value. `frames`: the frame height, delays and loop count of an
    /// animation, which the PNG (one tall image) cannot carry either.
    package static func arguments(encoder: VImage.Encoder, keepsMetadata: Bool = false, copyright: String? = nil, frames: FrameTiming? = nil,
                                  maxMemory: Int, maxSeconds: Int) -> [String] {
        func json(_ value: some Encodable) -> String {
            (try? JSONEncoder().encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        }
        return ["--encoder", json(encoder)] + (keepsMetadata ? ["--keep-metadata"] : []) + (copyright.map { ["--copyright=\($0)"] } ?? [])
            + (frames.map { ["--frames=\(json($0))"] } ?? []) + ["--max-memory", "\(maxMemory)", "--max-seconds", "\(maxSeconds)"]
    }

    /// Writes `png` (the answer's pixels, as the parent computed them)
    /// with `encoder`, given as ``arguments(encoder:keepsMetadata:copyright:frames:maxMemory:maxSeconds:)``
    /// writes it; `keepsMetadata`: the metadata the PNG carries is written
    /// on, with `copyright` set again; `frames`: the PNG's rows are an
    /// animation's frames, written as one. Call it only in a process of
    /// its own, with its limits set.
    public static func encode(_ png: Data, encoder json: String, keepsMetadata: Bool = false, copyright: String? = nil,
                              frames framesJSON: String? = nil) -> Outcome {
        guard let encoder = try? JSONDecoder().decode(VImage.Encoder.self, from: Data(json.utf8)), isWrittenHere(encoder) else {
            return .failed("the encoder or a setting is out of range")
        }
        let frames = framesJSON.flatMap { try? JSONDecoder().decode(FrameTiming.self, from: Data($0.utf8)) }
        guard framesJSON == nil || frames != nil else { return .failed("the frames are not the encoder's JSON") }
        do {
            try VipsRuntime.start()
            return try withRawBytes(of: png) { raw throws(VipsError) -> Outcome in
                let loaded = try VImage.load(raw, loader: .png)
                if let frames, !frames.fits(height: loaded.height) {
                    return .failed("the frames do not fit the \(loaded.height) rows of the image")
                }
                // The copyright kept alone, as the server's copy kept it;
                // the colour profile the PNG carries stays.
                let kept = try copyright.map { copyright throws(VipsError) in
                    try loaded.keepingMetadata(all: false, colourProfile: true, copyright: copyright)
                } ?? loaded
                let image = try frames.map { frames throws(VipsError) in try kept.withFrameTiming(frames) } ?? kept
                // In the child: its kernel limits bound it, the switch is never pulled.
                return .written(Data(try VipsKillSwitch().armed(image) { pass throws(VipsError) in
                    try image.encoded(encoder, strip: !keepsMetadata, through: pass) { [UInt8]($0) }
                }))
            }
        } catch {
            return .failed(error.message)
        }
    }

    /// The encoders the child runs, their numbers in range.
    static func isWrittenHere(_ encoder: VImage.Encoder) -> Bool {
        switch encoder {
        case .heic(let quality): (1...100).contains(quality)
        case .avif(let quality, let tuning): (1...100).contains(quality) && (0...9).contains(tuning.effort) && (0...2).contains(tuning.subsample)
        case .webp(let quality, let tuning): (1...100).contains(quality) && (0...6).contains(tuning.effort)
        case .webpLossless, .gif: true
        default: false
        }
    }
}
