@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// The pixel contract of the two engines: for every source kind the
/// thumbnail path takes and every request shape it takes, its pixels,
/// before encoding, are libvips' for the same request within the bound
/// written in docs/architecture.md, and the same size.
@Suite(.offCooperativePool) struct ThumbnailContractTests {
    /// The bound: every channel of every pixel within this much of libvips'.
    static let largestDifference = 1
    /// And the mean square difference no more than this PSNR allows (dB,
    /// over 8-bit peaks).
    static let minimumPSNR = 60.0

    struct Comparison: CustomStringConvertible {
        var tookPath: Bool
        var fastSize: (Int, Int)
        var referenceSize: (Int, Int)
        var largest: Int
        var psnr: Double
        var description: String {
            "path \(tookPath), \(fastSize) against \(referenceSize), largest difference \(largest), PSNR \(psnr.formatted(.number.precision(.fractionLength(1)))) dB"
        }
    }

    /// Runs `operations` on `source` through both engines: the thumbnail
    /// path's pixels before encoding, and libvips' written losslessly.
    static func compare(_ source: Data, _ operations: [ImageOperation], kernels: Thumbnail.Kernels = .best) throws -> Comparison {
        guard case .image(let format) = ImageFormat.sniff(source) else { throw ContractError("not an image") }
        var fastRun = ProcessingRun(data: source, options: ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg)),
                                    killSwitch: KillSwitch())
        fastRun.kernels = kernels
        let fast = try source.withUnsafeBytes { raw in try fastRun.thumbnailPixels(raw, format: format) }
        let reference = try ProcessingRun(data: source, options: ProcessingOptions(operations: operations, output: OutputOptions(format: .png)),
                                          killSwitch: KillSwitch(), usesThumbnail: false).run()
        let pixels = try RawPixels.decode([UInt8](reference.data), loader: .png)
        guard let (image, _) = fast else {
            return Comparison(tookPath: false, fastSize: (0, 0), referenceSize: (pixels.width, pixels.height), largest: 255, psnr: 0)
        }
        let rgb = image.rgbBytes()
        guard image.width == pixels.width, image.height == pixels.height, pixels.bands == 3 else {
            return Comparison(tookPath: true, fastSize: (image.width, image.height), referenceSize: (pixels.width, pixels.height), largest: 255, psnr: 0)
        }
        var largest = 0, squares = 0.0
        for i in 0..<rgb.count {
            let d = abs(Int(rgb[i]) - Int(pixels.bytes[i]))
            largest = max(largest, d)
            squares += Double(d * d)
        }
        let mse = squares / Double(rgb.count)
        let psnr = mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
        return Comparison(tookPath: true, fastSize: (image.width, image.height), referenceSize: (pixels.width, pixels.height),
                          largest: largest, psnr: psnr)
    }

    static func expectWithinBound(_ comparison: Comparison, _ name: String) {
        #expect(comparison.tookPath, "\(name): \(comparison)")
        #expect(comparison.fastSize == comparison.referenceSize, "\(name): \(comparison)")
        #expect(comparison.largest <= largestDifference && comparison.psnr >= minimumPSNR, "\(name): \(comparison)")
    }

    struct ContractError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// A corpus photo written again by libvips, whole.
    static func reencoded(_ jpeg: Data, as encoder: VImage.Encoder) throws -> Data {
        try VipsRuntime.start()
        return try jpeg.withUnsafeBytes { raw in try Data(VImage.load(raw, loader: .jpeg).encodedInTest(encoder)) }
    }

    // MARK: - Shapes

    static let gravities: [Gravity] = [.centre, .north, .south, .east, .west, .northEast, .northWest, .southEast, .southWest,
                                       .focusPoint(x: 0.3, y: 0.7), Gravity(.east, x: 7, y: 3)]

    /// Every request shape the path takes, for a source `width` wide.
    static func shapes(width: Int, height: Int) -> [(String, [ImageOperation])] {
        var shapes: [(String, [ImageOperation])] = [
            ("fit 512", [.resize(Resize(width: 512, height: 512))]),
            ("force 640 x 100", [.resize(Resize(width: 640, height: 100, mode: .force))]),
            ("force width only", [.resize(Resize(width: width / 3, height: nil, mode: .force))]),
            ("fill-down 300 x 500", [.resize(Resize(width: 300, height: 500, mode: .fillDown))]),
            ("fit 600, sepia", [.resize(Resize(width: 600, height: nil)), .sepia(intensity: 0.8)]),
            ("fit 100: a large reduction", [.resize(Resize(width: 100, height: 100))]),
            ("fit 37 x 1000: odd sizes", [.resize(Resize(width: 37, height: 1000))]),
        ]
        for gravity in gravities {
            shapes.append(("fill 300 x 300 \(gravity.key)", [.resize(Resize(width: 300, height: 300, mode: .fill, gravity: gravity))]))
        }
        // Every DCT scale libjpeg decodes at: 1, 2, 4 and 8.
        for fraction in [0.7, 0.4, 0.2, 0.1] {
            shapes.append(("fit \(fraction) of the width", [.resize(Resize(width: Int(Double(width) * fraction), height: nil))]))
        }
        return shapes
    }

    // MARK: - Tests

    /// The shapes above are requests the path takes, by the one rule in
    /// ``ThumbnailRequest``; these are not, each for its reason.
    @Test func theShapesAreThoseTheRuleTakes() {
        let fit: [ImageOperation] = [.resize(Resize(width: 512, height: 512))]
        func request(_ operations: [ImageOperation] = fit, source: ImageFormat = .jpeg, _ change: (inout ProcessingOptions) -> Void = { _ in })
            -> ThumbnailRequest? {
            var options = ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg))
            change(&options)
            return ThumbnailRequest(options, sourceFormat: source)
        }
        for (name, operations) in Self.shapes(width: 2560, height: 1920) {
            #expect(request(operations) != nil, "\(name)")
        }
        // Written by the path's own encoder, or by libvips' writing stage from its pixels.
        #expect(request()?.writesOwnJPEG == true)
        #expect(request(fit + [.sepia(intensity: 0.8)])?.sepia == 0.8)
        let writtenByLibvips: [(String, ThumbnailRequest?)] = [
            ("WebP", request { $0.output.format = .webp }), ("AVIF", request { $0.output.format = .avif }),
            ("PNG", request { $0.output.format = .png }), ("a WebP kept as WebP", request(source: .webp) { $0.output.format = nil }),
            ("progressive", request { $0.output.progressive = true }), ("a byte limit", request { $0.output.maxBytes = 10_000 }),
            ("the best format", request { $0.output.best = true; $0.output.format = nil }), ("quality 0", request { $0.output.quality = 0 }),
        ]
        for (name, request) in writtenByLibvips { #expect(request?.writesOwnJPEG == false, "\(name)") }
        #expect(request(source: .avif)?.kind == .avif)
        let refused: [(String, ThumbnailRequest?)] = [
            ("a GIF source", request(source: .gif)),
            ("an AVIF's embedded thumbnail", request(source: .avif) { $0.enforceThumbnail = true }),
            ("a second page", request { $0.pages = PageSelection(first: 1) }),
            ("metadata kept", request { $0.output.stripMetadata = false }),
            ("the colour profile kept", request { $0.output.stripColourProfile = false }),
            ("smart gravity", request([.resize(Resize(width: 300, height: 300, mode: .fill, gravity: .smart))])),
            ("sepia first", request([.sepia(intensity: 0.5)] + fit)),
            ("a step after the resize", request(fit + [.grayscale])),
            ("two resizes", request(fit + fit)),
            ("no resize", request([])),
        ]
        for (name, request) in refused { #expect(request == nil, "\(name)") }
    }

    /// Three photos (a baseline 2560 x 1920, the progressive ones with odd
    /// sizes) in every shape; every other corpus photo in four.
    @Test(arguments: Corpus.photos.map(\.lastPathComponent))
    func everyCorpusJPEGInEveryShape(photo: String) async throws {
        let source = try Corpus.data(photo)
        let everyShape = ["Wood.jpg", "FreshFlower.jpg", "GreenMeadow.jpg"].contains(photo)
        let comparisons = try await onOwnThread {
            guard let size = source.withUnsafeBytes({ Thumbnail.header($0, format: .jpeg) }) else { throw ContractError("no header") }
            let shapes = Self.shapes(width: size.width, height: size.height)
            return try (everyShape ? shapes : Self.fewShapes(shapes)).map { ($0.0, try Self.compare(source, $0.1)) }
        }
        for (name, comparison) in comparisons { Self.expectWithinBound(comparison, "\(photo), \(name)") }
    }

    /// A box on both sides, a fill crop, sepia, and libjpeg's smallest scale.
    static func fewShapes(_ shapes: [(String, [ImageOperation])]) -> [(String, [ImageOperation])] {
        shapes.filter { ["fit 100: a large reduction", "fill 300 x 300 south-west", "fit 600, sepia", "fit 0.1 of the width"].contains($0.0) }
    }

    /// PNG (each row's filter chosen, as most PNGs are written), lossy
    /// WebP, lossless WebP and AVIF (8-bit 4:2:0, as libheif writes it by
    /// default) versions of a corpus photo in every shape, and of two more
    /// in four.
    @Test(arguments: ["PNG", "WebP", "lossless WebP", "AVIF"])
    func otherSourceKindsInEveryShape(kind: String) async throws {
        let encoder: VImage.Encoder = switch kind {
        case "PNG": .pngFiltered
        case "WebP": .webp(quality: 85)
        case "AVIF": .avif(quality: 63)
        default: .webpLossless
        }
        for photo in ["Dune.jpg", "Aqua.jpg", "FreshFlower.jpg"] {
            let comparisons = try await onOwnThread {
                let source = try Self.reencoded(try Corpus.data(photo), as: encoder)
                guard case .image(let format) = ImageFormat.sniff(source), let kind = ProcessingRun.thumbnailFormat(format),
                      let size = source.withUnsafeBytes({ Thumbnail.header($0, format: kind) })
                else { throw ContractError("no header") }
                let shapes = Self.shapes(width: size.width, height: size.height)
                return try (photo == "Dune.jpg" ? shapes : Self.fewShapes(shapes)).map { ($0.0, try Self.compare(source, $0.1)) }
            }
            for (name, comparison) in comparisons { Self.expectWithinBound(comparison, "\(photo) as \(kind), \(name)") }
        }
    }

    /// A 4:4:4 AVIF keeps the contract too, and so does one whose EXIF
    /// says to turn it (libvips' HEIF loader drops that orientation: both
    /// engines take it as stored); one with an alpha channel is libvips'
    /// alone.
    @Test func otherAVIFKinds() async throws {
        try VipsRuntime.start()
        let fullChroma = try Fixtures.data("full-chroma.avif")
        let turned = try Fixtures.data("right-orientation.jpg").withUnsafeBytes { raw in
            Data(try VImage.load(raw, loader: .jpeg).encodedInTest(.avif(quality: 63), strip: false))
        }
        let fit: [ImageOperation] = [.resize(Resize(width: 100, height: 100))]
        let comparisons = try await onOwnThread { [try Self.compare(fullChroma, fit), try Self.compare(turned, fit)] }
        Self.expectWithinBound(comparisons[0], "full-chroma.avif")
        Self.expectWithinBound(comparisons[1], "an AVIF with EXIF orientation 6")
        let withAlpha = try Fixtures.data("landscape.jpg").withUnsafeBytes { raw in
            try VImage.load(raw, loader: .jpeg).withAlpha().encodedInTest(.avif(quality: 63))
        }
        let header = try #require(Data(withAlpha).withUnsafeBytes { Thumbnail.header($0, format: .avif) })
        #expect(header.width == 240 && !header.isSupported)
    }

    /// The plain C, SSE2 and AVX2 kernels give the same bytes on the same
    /// input, whatever the processor would pick: every plan shape (box or
    /// not on each side, a crop, a side kept) on one noisy image.
    @Test func everyKernelSetGivesTheSameBytes() async throws {
        let (width, height) = (613, 401)
        var state: UInt32 = 12345
        let rgb = (0..<(width * height * 3)).map { _ -> UInt8 in
            state = state &* 1_103_515_245 &+ 12345
            return UInt8(truncatingIfNeeded: state >> 16)
        }
        @Sendable func plan(_ w: Int, _ h: Int, crop: (Int, Int, Int, Int)? = nil, kernels: Thumbnail.Kernels) -> Thumbnail.Plan {
            let c = crop ?? (0, 0, w, h)
            return Thumbnail.Plan(shrink: 1, decodedWidth: width, decodedHeight: height,
                                  horizontalScale: Double(w) / Double(width), verticalScale: Double(h) / Double(height),
                                  cropLeft: c.0, cropTop: c.1, cropWidth: c.2, cropHeight: c.3, kernels: kernels)
        }
        let shapes: [(Int, Int, (Int, Int, Int, Int)?)] = [
            (300, 200, nil), (61, 40, nil), (613, 100, nil), (100, 401, nil), (5, 3, nil), (1, 1, nil),
            (400, 300, (50, 20, 250, 101)), (200, 133, (0, 66, 200, 1)),
        ]
        let available = Thumbnail.Kernels.allCases.filter { $0 != .best && $0.isAvailable }
        #expect(available.contains(.scalar) && available.contains(.sse2), "\(available)")
        for (w, h, crop) in shapes {
            let results = try await onOwnThread {
                try available.map { kernels -> [UInt8] in
                    guard let image = Thumbnail.resample(rgb: rgb, plan: plan(w, h, crop: crop, kernels: kernels)) else {
                        throw ContractError("no resampler for \(kernels)")
                    }
                    return image.rgbBytes()
                }
            }
            for (kernels, result) in zip(available, results) {
                let differing = zip(result, results[0]).filter { $0 != $1 }.count + abs(result.count - results[0].count)
                #expect(differing == 0, "\(w) x \(h) \(crop.map { "\($0)" } ?? ""): \(kernels) against \(available[0]), \(differing) bytes differ")
            }
        }
    }

    /// And each kernel set, run on a corpus photo through the whole path,
    /// keeps the contract.
    @Test(arguments: Thumbnail.Kernels.allCases.filter { $0 != .best && $0.isAvailable })
    func eachKernelSetKeepsTheContract(kernels: Thumbnail.Kernels) async throws {
        let source = try Corpus.data("Wood.jpg")
        let comparisons = try await onOwnThread {
            try [[ImageOperation.resize(Resize(width: 333, height: 333, mode: .fill, gravity: .southEast))],
                 [.resize(Resize(width: 77, height: nil))]].map { try Self.compare(source, $0, kernels: kernels) }
        }
        for comparison in comparisons { Self.expectWithinBound(comparison, "Wood.jpg with \(kernels)") }
    }
}
