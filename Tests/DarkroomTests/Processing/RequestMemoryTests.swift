@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// One budget covers a run from its decode to its encode: the encoder's
/// working set for the result's format and size, the steps that keep their
/// image whole, a watermark's decode, each estimated before anything is
/// allocated; and animations whose containers hold more frames than the
/// limit are refused from a count of their chunks or blocks.
@Suite(.offCooperativePool) struct RequestMemoryTests {
    static func options(_ operations: [ImageOperation], format: ImageFormat, budgetMiB: Int) -> ProcessingOptions {
        var options = ProcessingOptions(operations: operations, output: OutputOptions(format: format))
        options.limits.maxDecodeMemory = budgetMiB << 20
        return options
    }

    static func refusal(_ data: Data, _ options: ProcessingOptions) -> DarkroomError? {
        do {
            _ = try process(data, options)
            return nil
        } catch {
            return error
        }
    }

    /// 1 x 1 extended to 4096 x 4096: nothing to decode, all in the encoder.
    static let extend = [ImageOperation.resize(Resize(width: 4096, height: 4096, enlarge: false)),
                         .extend(width: 4096, height: 4096, aspectOnly: false, gravity: .centre, background: nil)]

    @Test(arguments: [ImageFormat.avif, .webp, .gif])
    func anEncoderThatHoldsThePictureIsRefusedBeforeItsPixelsAreMade(format: ImageFormat) throws {
        let source = try solidPNG([90, 120, 200], width: 1, height: 1)
        let error = try #require(Self.refusal(source, Self.options(Self.extend, format: format, budgetMiB: 64)))
        #expect(error.kind == .tooMuchMemory)
        #expect(error.reason.contains("writing the 4096 x 4096 image as \(format.rawValue.uppercased())"), "\(error.reason)")
        #expect(error.reason.contains("over the limit of 64 MiB"), "\(error.reason)")
    }

    /// WebP's estimate is the worst picture's (noise: about 20 bytes a
    /// pixel, measured; the estimate was once 5, and a 7000 x 7000 noise
    /// answer rose 789 MB past a 256 MiB budget). 2000 x 2000 of noise as
    /// WebP needs about 84 MB: refused in 64 MiB, before a pixel is made.
    @Test func aWebPAnswerIsCountedAsTheWorstPictureCostsIt() throws {
        var generator = SystemRandomNumberGenerator()
        let side = 2000
        let noise = (0..<side * side * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let source = Data(try RawPixels(width: side, height: side, bands: 3, bytes: noise).pngData())
        var options = Self.options([], format: .webp, budgetMiB: 64)
        options.limits.maxSourceBytes = 100_000_000
        let error = try #require(Self.refusal(source, options))
        #expect(error.kind == .tooMuchMemory && error.reason.contains("writing the 2000 x 2000 image as WEBP"), "\(error.reason)")
        // The same picture as JPEG, written row by row, answers.
        options.output.format = .jpeg
        #expect(try process(source, options).width == side)
    }

    @Test(arguments: [ImageFormat.png, .jpeg])
    func anEncoderThatWritesRowsAsTheyComeAnswers(format: ImageFormat) throws {
        let source = try solidPNG([90, 120, 200], width: 1, height: 1)
        let image = try process(source, Self.options(Self.extend, format: format, budgetMiB: 64))
        #expect((image.width, image.height) == (4096, 4096))
    }

    @Test func theSameAnswerSmallerFitsTheBudget() throws {
        let source = try solidPNG([90, 120, 200], width: 1, height: 1)
        let small = [ImageOperation.resize(Resize(width: 512, height: 512, enlarge: false)),
                     .extend(width: 512, height: 512, aspectOnly: false, gravity: .centre, background: nil)]
        let image = try process(source, Self.options(small, format: .avif, budgetMiB: 64))
        #expect((image.width, image.height, image.format) == (512, 512, .avif))
    }

    /// A trim holds its image in memory: counted, and refused past the
    /// budget, where the same image without it streams.
    @Test func aStepThatKeepsItsImageWholeCountsInTheBudget() throws {
        let source = try solidPNG([255, 255, 255], width: 2400, height: 2400)
        let trim = ImageOperation.trim(threshold: 10, colour: nil, equalHorizontal: false, equalVertical: false)
        let error = try #require(Self.refusal(source, Self.options([trim], format: .jpeg, budgetMiB: 16)))
        #expect(error.kind == .tooMuchMemory && error.reason.contains("trimming the 2400 x 2400 image"), "\(error.reason)")
        let turn = ImageOperation.rotate(degrees: 90)
        #expect(Self.refusal(source, Self.options([turn], format: .jpeg, budgetMiB: 16))?.kind == .tooMuchMemory)
        #expect(try process(source, Self.options([], format: .jpeg, budgetMiB: 16)).width == 2400)
    }

    /// `mb:` writes the picture more than once, from a copy in memory:
    /// counted, and refused past the budget, where one write streams.
    @Test func aByteLimitsCopyCountsInTheBudget() throws {
        let source = try solidPNG([30, 60, 90], width: 2400, height: 2400)
        var limited = Self.options([], format: .jpeg, budgetMiB: 16)
        limited.output.maxBytes = 50_000
        let error = try #require(Self.refusal(source, limited))
        #expect(error.kind == .tooMuchMemory && error.reason.contains("to be written more than once"), "\(error.reason)")
        #expect(try process(source, Self.options([], format: .jpeg, budgetMiB: 16)).width == 2400)
        limited.limits.maxDecodeMemory = 64 << 20
        #expect(try process(source, limited).width == 2400, "within a budget that holds the copy")
    }

    /// The watermark's decode and its copy count as the source's do.
    @Test func aWatermarkCountsInTheBudget() throws {
        let mark = try solidPNG([0, 0, 0, 255], width: 1500, height: 1500)
        let watermark = ImageOperation.watermark(Watermark(image: WatermarkImage(data: mark), opacity: 1))
        let source = try Fixtures.data("landscape.jpg")
        let error = try #require(Self.refusal(source, Self.options([watermark], format: .jpeg, budgetMiB: 16)))
        #expect(error.kind == .tooMuchMemory && error.reason.contains("1500 x 1500 watermark"), "\(error.reason)")
        #expect(try process(source, Self.options([watermark], format: .jpeg, budgetMiB: 64)).width == 240)
    }

    /// AVIF written at quality 90 or more keeps full chroma (libvips' rule):
    /// its decode is estimated as such, from the codec's configuration box.
    @Test func aHEIFImagesChromaIsReadFromItsConfiguration() throws {
        func coding(_ data: Data) throws -> HEIFStructure.Coding? {
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> HEIFStructure.Coding? in try HEIFStructure.read(raw)?.coding }
        }
        let source = try Fixtures.data("landscape.jpg")
        let subsampled = try process(source, ProcessingOptions(output: OutputOptions(format: .avif, quality: 60))).data
        let full = try process(source, ProcessingOptions(output: OutputOptions(format: .avif, quality: 95))).data
        #expect(try coding(subsampled) == HEIFStructure.Coding(fullChroma: false, highBitDepth: false))
        #expect(try coding(full) == HEIFStructure.Coding(fullChroma: true, highBitDepth: false))
        #expect(MemoryCost.wholeDecode(.avif, bands: 3, bytesPerSample: 1, heif: try coding(full))
                > MemoryCost.wholeDecode(.avif, bands: 3, bytesPerSample: 1, heif: try coding(subsampled)))
    }

    @Test func framesAreCountedAsLibvipsCountsThem() throws {
        for name in ["animated.gif", "animated.webp"] {
            let data = try Fixtures.data(name)
            let count = data.withUnsafeBytes { FrameCount.count($0, format: name.hasSuffix("gif") ? .gif : .webp, limit: 100) }
            #expect(count == 4, "\(name)")
        }
        let still = try Fixtures.data("landscape.webp")
        #expect(still.withUnsafeBytes { FrameCount.count($0, format: .webp, limit: 100) } == 1)
        #expect(try Fixtures.data("landscape.jpg").withUnsafeBytes { FrameCount.count($0, format: .jpeg, limit: 100) } == nil)
    }

    /// Every prefix of an animation counts no more frames than it holds,
    /// and never reads past its end.
    @Test func everyPrefixIsCountedWithoutATrap() throws {
        for name in ["animated.gif", "animated.webp"] {
            let data = try Fixtures.data(name)
            for end in 0...data.count {
                let count = data.prefix(end).withUnsafeBytes { FrameCount.count($0, format: name.hasSuffix("gif") ? .gif : .webp, limit: 100) }
                #expect((count ?? 0) <= 4, "\(name) cut at \(end)")
            }
        }
    }

    @Test func anAnimationOverTheFrameLimitIsRefusedBeforeLibvipsReadsIt() throws {
        var options = ProcessingOptions(operations: [.resize(Resize(width: 50, height: 50))], output: OutputOptions(format: .png))
        options.limits.maxSourceFrames = 3
        for name in ["animated.gif", "animated.webp"] {
            let error = try #require(Self.refusal(try Fixtures.data(name), options), "\(name)")
            #expect(error.kind == .tooComplex && error.reason.contains("more than 3 frames"), "\(name): \(error.reason)")
        }
        options.limits.maxSourceFrames = 4
        #expect(try process(Fixtures.data("animated.gif"), options).width == 50)
    }
}
