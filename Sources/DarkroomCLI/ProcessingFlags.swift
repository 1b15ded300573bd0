public import ArgumentParser
import Darkroom
import Foundation

/// The processing options shared by `process`, `fetch` and `book`.
struct ProcessingFlags: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("Resize to WxH, or W for a W x W box.", valueName: "WxH"))
    var resize: String?

    @Option(name: .long, help: "How to resize: fit (inside the box) or fill (crop to fill it).")
    var fit: Resize.Mode = .fit

    @Option(name: .long, help: ArgumentHelp("Where a fill crop keeps the image: centre, north, south, east, west, north-east, north-west, south-east, south-west or smart, each with :X:Y pixels of offset from its edge; or focus-point:X:Y, X and Y from 0 to 1.", valueName: "GRAVITY[:X:Y]"))
    var gravity: Gravity = .centre

    @Option(name: .long, help: ArgumentHelp("A filter, applied in order: sepia[:INTENSITY], grayscale, blur:SIGMA, sharpen[:SIGMA]. Repeatable.", valueName: "NAME[:ARG]"))
    var filter: [String] = []

    @Option(name: .long, help: "Output format: jpeg, png, webp, avif, heic, gif, tiff, bmp, ico, or jxl with --jpeg-xl (default: the source's, or JPEG or PNG for TIFF, HEIC and JPEG XL; an animated GIF stays one).")
    var format: String?

    @Option(name: .long, help: "Quality for JPEG, WebP and AVIF, 1...100.")
    var quality: Int = 85

    @Flag(name: .customLong("jpeg-xl"), help: "Read and write JPEG XL (off by default: libvips marks its JPEG XL codec untrusted).")
    var jpegXL = false
    @Flag(name: .customLong("svg-render"), inversion: .prefixedNo, help: "Draw SVG sources with librsvg, in a sandboxed child process (on by default); with --format svg, an SVG is written as it came, sanitised.")
    var svgRender = true

    @Option(name: .long, help: "Seconds one image's processing may take before it is stopped, 1...3600 (default 20). [DARKROOM_MAX_PROCESSING_SECONDS]")
    var maxProcessingSeconds: Int?

    @Option(name: .long, help: "Memory one image's run may hold, in MiB, 16...65536: its decode, the steps that keep it whole and the encoder, estimated before anything is allocated (default: as darkroom serve's). [DARKROOM_MAX_REQUEST_MEMORY_MB]")
    var maxRequestMemoryMb: Int?

    /// `--max-request-memory-mb`, else `DARKROOM_MAX_REQUEST_MEMORY_MB`, else
    /// the default budget, in bytes.
    static func memoryBudget(_ flag: Int?) throws -> Int {
        try number(flag, option: "max-request-memory-mb", range: 16...65_536).map { $0 << 20 } ?? ImageLimits.default.maxDecodeMemory
    }

    /// `--max-processing-seconds`, else `DARKROOM_MAX_PROCESSING_SECONDS`
    /// (as `serve` reads it), else the server's default: a photo that takes
    /// longer is more likely a hostile file than a slow machine, and a busy
    /// machine that needs more is given it by the flag.
    static func processingTime(_ flag: Int?) throws -> Duration {
        try number(flag, option: "max-processing-seconds", range: 1...3600).map { .seconds($0) } ?? ImageLimits.default.maxProcessingTime
    }

    /// `--OPTION`, else `DARKROOM_OPTION` (as `serve` reads it), each held
    /// to `range`; nil when neither is given.
    private static func number(_ flag: Int?, option: String, range: ClosedRange<Int>) throws -> Int? {
        if let flag {
            guard range.contains(flag) else { throw ValidationError("--\(option) \(flag) is outside \(range.lowerBound)...\(range.upperBound)") }
            return flag
        }
        let variable = "DARKROOM_" + option.uppercased().replacingOccurrences(of: "-", with: "_")
        guard let text = ProcessInfo.processInfo.environment[variable] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError("\(variable)=\(text) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    func validate() throws {
        _ = try options(defaultFilters: [])
    }

    /// The processing options the flags describe.
    func options(defaultFilters: [String]) throws -> ProcessingOptions {
        var operations: [ImageOperation] = []
        if let resize {
            operations.append(.resize(try Self.parseResize(resize, mode: fit, gravity: gravity)))
        }
        for text in filter.isEmpty ? defaultFilters : filter {
            do {
                operations.append(try ImageOperation(filter: text))
            } catch {
                throw ValidationError("--filter \(text): \(error.reason)")
            }
        }
        var output = OutputOptions(quality: quality)
        guard StepRanges.quality.contains(quality) else {
            throw ValidationError("--quality \(quality) is outside \(StepRanges.text(StepRanges.quality))")
        }
        if let format {
            guard let parsed = ImageFormat(name: format), parsed.canEncode || parsed == .svg else {
                throw ValidationError("--format \(format): not a format Darkroom writes (jpeg, png, webp, avif, heic, gif, tiff, bmp, ico, jxl)")
            }
            guard parsed != .jxl || jpegXL else {
                throw ValidationError("--format jxl needs --jpeg-xl (libvips marks its JPEG XL codec untrusted)")
            }
            output.format = parsed
        }
        var options = ProcessingOptions(operations: operations, output: output)
        options.limits.jpegXL = jpegXL
        options.limits.svgDrawing = svgRender ? DrawingChild.svg : nil
        options.limits.encodingChild = DrawingChild.encoder
        options.limits.maxProcessingTime = try Self.processingTime(maxProcessingSeconds)
        options.limits.maxDecodeMemory = try Self.memoryBudget(maxRequestMemoryMb)
        return options
    }

    static func parseResize(_ text: String, mode: Resize.Mode, gravity: Gravity) throws -> Resize {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        let numbers = parts.map { Int($0) }
        guard (1...2).contains(parts.count), numbers.allSatisfy({ $0 != nil && $0! > 0 && StepRanges.side.contains($0!) }) else {
            throw ValidationError("--resize \(text): expected WxH or W, with positive whole numbers, as in 600x400 or 600")
        }
        let width = numbers[0]!
        let height = numbers.count == 2 ? numbers[1]! : width
        return Resize(width: width, height: height, mode: mode, gravity: gravity)
    }
}

extension Resize.Mode: ExpressibleByArgument {}
extension Gravity: ExpressibleByArgument {
    /// A kind, then its offsets or focus point: `east`, `east:10:0`,
    /// `focus-point:0.3:0.6`; the same form as ``key``.
    init?(argument: String) {
        let parts = argument.split(separator: ":", omittingEmptySubsequences: false)
        guard let kind = Kind(rawValue: String(parts[0])), parts.count == 1 || parts.count == 3 else { return nil }
        let defaultValue = kind == .focusPoint ? 0.5 : 0
        guard let x = parts.count == 3 ? Double(parts[1]) : defaultValue,
              let y = parts.count == 3 ? Double(parts[2]) : defaultValue else { return nil }
        let gravity = Gravity(kind, x: x, y: y)
        guard gravity.isValid, kind != .smart || (x == 0 && y == 0) else { return nil }
        self = gravity
    }

    static var allValueStrings: [String] { Kind.allCases.map(\.rawValue) }
    var defaultValueDescription: String { key }
}
