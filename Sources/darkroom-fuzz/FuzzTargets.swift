import Darkroom
import DarkroomServer
import Foundation

/// What the fuzzer feeds: each target takes arbitrary bytes through one of
/// Darkroom's front doors and must end in a value or a clear error, never
/// a crash, a trap or a hang.
enum FuzzTarget: String, CaseIterable {
    /// Image URLs: the imgproxy grammar, presets, base64 sources, options'
    /// numbers; then the signature check on what parsed.
    case url
    /// Accept headers.
    case accept
    /// Photo lists: XML and binary property lists, JSON.
    case list
    /// The photobook API's JSON, then the page layout it leads to.
    case book
    /// Format sniffing, the header limits, and libvips loading and
    /// processing through Darkroom's limits (small ones, so that the
    /// fuzzer stays fast).
    case image
    /// `s3://` locations as flags give them.
    case s3
    /// The thumbnail engine, structure-aware: the request's shape, crop,
    /// kernels and a stop midway come from the input's first bytes, and a
    /// PNG's rows may come before compression (see ``ThumbnailFuzzing``).
    case thumbnail
    /// A HEIF or AVIF file's boxes, read and checked as they are before
    /// libheif may open the file.
    case heif
    /// An animated GIF's blocks or WebP's chunks, counted as they are
    /// before libvips may read the file (the format from the first bytes).
    case frames

    static let presets = ["thumb": "rs:fill:100:100/sepia:0.8", "loop": "pr:loop", "big": "w:4000/h:4000"]
    static let signature = try! URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
    static let gallery = PhotoList(entries: (0..<3).map { PhotoList.Entry(id: $0, name: "photo \($0)", url: URL(string: "https://example.com/\($0).jpg")) })
    static let processor = ImageProcessor()

    func run(_ data: Data) {
        switch self {
        case .url:
            let text = String(decoding: data, as: UTF8.self)
            if let url = try? ImageURL(path: text, presets: Self.presets) {
                _ = Self.signature.verify(url.signature, path: url.signedPath)
                _ = url.options.processing(format: nil).identifier
            }
        case .accept:
            let formats = AcceptedFormats(String(decoding: data, as: UTF8.self))
            _ = formats.key
        case .list:
            if let list = try? PhotoList.parse(data, origin: "fuzz") {
                _ = list.shard(1, of: 3)
            }
        case .book:
            guard let order = try? JSONDecoder().decode(BookRoutes.BookOrder.self, from: data) else { return }
            if case .success(let request) = BookRoutes.photobookRequest(order, list: Self.gallery) {
                _ = try? PageLayout(request)
            }
        case .image:
            _ = ImageFormat.sniff(data)
            var options = ProcessingOptions(operations: [.resize(Resize(width: 64, height: 64)), .sepia(intensity: 0.8)])
            options.limits.maxSourcePixels = 4_000_000
            options.limits.maxSourceBytes = 1 << 20
            options.limits.maxProcessingTime = .seconds(5)
            _ = try? ImageProcessor.processBlocking(data, options: options, killSwitch: KillSwitch())
            // Answered as JPEG, a JPEG, PNG or WebP takes the thumbnail
            // path's own decoders instead of libvips'.
            options.output.format = .jpeg
            _ = try? ImageProcessor.processBlocking(data, options: options, killSwitch: KillSwitch())
        case .s3:
            _ = try? S3Location(parsing: String(decoding: data, as: UTF8.self))
        case .thumbnail:
            ThumbnailFuzzing.run(data)
        case .heif:
            data.withUnsafeBytes { raw in
                if let structure = try? HEIFStructure.read(raw) { _ = try? structure.check(maxTiles: 256) }
            }
        case .frames:
            data.withUnsafeBytes { raw in
                let format: ImageFormat = raw.first == UInt8(ascii: "G") ? .gif : .webp
                if let count = FrameCount.count(raw, format: format, limit: 10_000) {
                    precondition(count >= 1 && count <= 10_001, "a count of \(count) frames")
                }
            }
        }
    }

    /// From `DARKROOM_FUZZ_TARGET`, as libFuzzer runs the binary.
    static var fromEnvironment: FuzzTarget {
        let name = ProcessInfo.processInfo.environment["DARKROOM_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            FileHandle.standardError.write(Data("set DARKROOM_FUZZ_TARGET to one of \(allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return target
    }
}

private let target = FuzzTarget.fromEnvironment

/// libFuzzer's entry point: one input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    target.run(Data(bytes: bytes, count: count))
    return 0
}

#if DARKROOM_FUZZING
/// libFuzzer's driver, from the fuzzer runtime that `-sanitize=fuzzer` links.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

/// The package's executables have an entry point of their own name, not
/// `main`, so libFuzzer's `main` is not the one that runs: this one hands
/// the command line to libFuzzer's driver.
@main
enum Fuzz {
    static func main() {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv) { bytes, count in fuzzOneInput(bytes, count) })
    }
}
#else
/// Without libFuzzer (an ordinary build): replays files through a target,
/// as the test suite does with the seed corpus and every crash once found.
///
///     DARKROOM_FUZZ_TARGET=url darkroom-fuzz FILE...
@main
enum Replay {
    static func main() {
        var count = 0
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            target.run(data)
            count += 1
        }
        print("\(target.rawValue): \(count) inputs, no crash")
    }
}
#endif
