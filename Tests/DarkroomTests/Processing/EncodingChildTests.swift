@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// HEIC answers, and AVIF ones past 3.2 megapixels, written by the
/// encoding child: the same answer as in process, and an encoder that
/// would run past the deadline ends with its child.
@Suite(.offCooperativePool) struct EncodingChildTests {
    static let child = EncodingChild(command: [DarkroomProcess.binary.path, "encode-image"])

    func options(_ format: ImageFormat, _ operations: [ImageOperation] = []) -> ProcessingOptions {
        var options = ProcessingOptions(operations: operations, output: OutputOptions(format: format))
        options.limits.encodingChild = Self.child
        return options.unhurried
    }

    @Test func heicAndLargeAVIFAnswersAreWrittenByTheChild() throws {
        let photo = try Corpus.data("Aqua.jpg")  // 2560 x 1600: 4.1 megapixels
        for format in [ImageFormat.heic, .avif] {
            let answer = try ImageProcessor.processBlocking(photo, options: options(format))
            #expect(answer.format == format && answer.width == 2560 && answer.height == 1600)
            let decoded = try RawPixels.decode([UInt8](answer.data), loader: .heif)
            #expect(decoded.width == 2560 && decoded.height == 1600, "\(format)")
        }
        // A small AVIF answer stays in this process, and reads the same.
        let small = try ImageProcessor.processBlocking(photo, options: options(.avif, [.resize(Resize(width: 300, height: nil))]))
        #expect(small.width == 300 && small.format == .avif)
    }

    /// A 12-megapixel photo as HEIC within the default budget, where the
    /// machine has the memory for it (a quarter of it is 512 MiB): x265
    /// holds about 320 MB for it in the child (and maps up to 730 MB, as
    /// its threads' arenas come), which 256 MiB gives only at times.
    @Test(.enabled(if: ImageLimits.defaultDecodeMemory >= 512 << 20 && Variants.sanitizer == nil,
                   "the default budget follows the machine's memory; a sanitizer lifts the child's limits"))
    func aTwelveMegapixelPhotoIsWrittenAsHEICWithinTheDefaultBudget() throws {
        let photo = try Corpus.data("Aqua.jpg")
        let twelve = options(.heic, [.resize(Resize(width: 4000, height: 3000, mode: .fill, enlarge: true))])
        #expect(twelve.limits.maxDecodeMemory == ImageLimits.defaultDecodeMemory)
        let answer = try ImageProcessor.processBlocking(photo, options: twelve)
        #expect(answer.format == .heic && answer.width == 4000 && answer.height == 3000)
    }

    /// An answer that keeps metadata (imgproxy's default keeps the EXIF
    /// copyright) is written by the child too, the metadata carried to it
    /// in the PNG it reads: x265 never runs in the server.
    @Test func answersThatKeepMetadataAreWrittenByTheChildWithIt() throws {
        let source = try Fixtures.data("metadata.jpg")
        func has(_ answer: ProcessedImage, _ text: String) -> Bool { answer.data.range(of: Data(text.utf8)) != nil }
        var keeping = options(.heic)
        keeping.output.stripMetadata = false
        let kept = try ImageProcessor.processBlocking(source, options: keeping)
        #expect(kept.format == .heic && has(kept, "TestCam") && has(kept, "Darkroom Test Photos"), "the EXIF written on")
        let plain = try ImageProcessor.processBlocking(source, options: options(.heic))
        #expect(has(plain, "Darkroom Test Photos") && !has(plain, "TestCam"), "the copyright alone, by default")
        // A copyright is a stranger's text: one that looks like the
        // child's own options stays the copyright.
        let tricky = "--max-seconds=1 --keep-metadata"
        let trickyAnswer = try ImageProcessor.processBlocking(try FormatTests.withCopyright(Array(tricky.utf8)), options: options(.heic))
        #expect(has(trickyAnswer, tricky))
        // With a child that cannot write, both fail: the child wrote them.
        for var failing in [keeping, options(.heic)] {
            failing.limits.encodingChild = EncodingChild(command: ["/bin/false"])
            #expect(refusal(source, failing)?.kind == .cannotEncode)
        }
    }

    /// An animation past the child's size is written there too: its
    /// frames as one tall PNG, their height, delays and loop count as an
    /// argument, and it comes back as the same animation.
    @Test func animationsAreWrittenByTheChildWithTheirTiming() throws {
        let source = try Fixtures.data("animated.gif")
        let sourceLoop = try withRawBytes(of: source) { raw throws(VipsError) in try VImage.load(raw, loader: .gif).loopCount }
        // Four frames of 960 x 640: 2.5 megapixels in all.
        let enlarged = [ImageOperation.resize(Resize(width: 960, height: 640, enlarge: true))]
        for format in [ImageFormat.webp, .gif] {
            let answer = try ImageProcessor.processBlocking(source, options: options(format, enlarged))
            let frames = try AnimationTests.frames(of: answer)
            #expect(frames.count == 4 && frames.width == 960 && frames.height == 640, "\(format)")
            #expect(frames.delays == [100, 200, 300, 400], "\(format)")
            for (colour, expected) in zip(frames.colours, AnimationTests.colours) {
                #expect(AnimationTests.close(colour, expected), "\(format): \(colour) for \(expected)")
            }
            let loop = try withRawBytes(of: [UInt8](answer.data)) { raw throws(VipsError) in try VImage.load(raw, loader: format.loader).loopCount }
            #expect(loop == sourceLoop, "\(format)")
            // With a child that cannot write, it fails: the child wrote it.
            var failing = options(format, enlarged)
            failing.limits.encodingChild = EncodingChild(command: ["/bin/false"])
            #expect(refusal(source, failing)?.kind == .cannotEncode, "\(format)")
        }
        // Frames that do not fit the rows handed over are refused by the child.
        let png = try RawPixels(width: 4, height: 6, bands: 3, bytes: [UInt8](repeating: 9, count: 72)).pngData()
        let misfit = FrameTiming(pageHeight: 4, delays: [], loop: 0)
        func json(_ value: some Encodable) throws -> String { String(decoding: try JSONEncoder().encode(value), as: UTF8.self) }
        #expect(ImageEncoding.encode(Data(png), encoder: try json(VImage.Encoder.gif), frames: try json(misfit)).status == 4)
    }

    /// Pixels of more than 8 bits (`preserve_hdr`) go to the child as a
    /// 16-bit PNG, and the answer keeps them as the server's own encoder
    /// does: a 12-bit AVIF past 3.2 megapixels.
    @Test func sixteenBitPixelsAreWrittenByTheChildAtTheirDepth() throws {
        let source = try Fixtures.data("sixteen-bit.png")
        var keeping = options(.avif, [.resize(Resize(width: 2000, height: 1700, mode: .fill, enlarge: true))])
        keeping.output.preserveHDR = true
        func highBitDepth(_ answer: ProcessedImage) throws -> Bool? {
            try [UInt8](answer.data).withUnsafeBytes { try HEIFStructure.read($0)?.coding.highBitDepth }
        }
        let answer = try ImageProcessor.processBlocking(source, options: keeping)
        #expect(try highBitDepth(answer) == true && answer.width == 2000 && answer.height == 1700)
        keeping.limits.encodingChild = EncodingChild(command: ["/bin/false"])
        #expect(refusal(source, keeping)?.kind == .cannotEncode, "the child wrote it")
    }

    /// x265 on 9 megapixels of noise takes seconds; with a one-second
    /// limit the child is killed at the deadline (or by its own CPU limit)
    /// and the run says so.
    /// An answer that does not read back at the image's size is refused:
    /// the file libaom's writer gave back, short of memory in its child,
    /// with a clean exit.
    @Test func anAnswerWithoutAPictureIsRefused() throws {
        let empty = try Fixtures.data("empty-answer.avif")
        #expect(!ProcessingRun.readsBack(empty, width: 4000, height: 2990))
        let small = try ImageProcessor.processBlocking(try Corpus.data("Aqua.jpg"), options: options(.avif, [.resize(Resize(width: 300, height: nil))]))
        #expect(ProcessingRun.readsBack(small.data, width: small.width, height: small.height))
        #expect(!ProcessingRun.readsBack(small.data, width: small.width + 1, height: small.height))
    }

    @Test func anEncoderPastTheDeadlineEndsWithItsChild() throws {
        var generator = SystemRandomNumberGenerator()
        let side = 3000
        let noise = (0..<side * side * 3).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let source = Data(try RawPixels(width: side, height: side, bands: 3, bytes: noise).pngData())
        var bounded = options(.heic)
        bounded.limits.maxSourceBytes = 100_000_000
        bounded.limits.maxDecodeMemory = 1 << 30
        bounded.limits.maxProcessingTime = .seconds(1)
        let started = ContinuousClock.now
        let refused = refusal(source, bounded)
        #expect(refused?.kind == .processingTimedOut || refused?.kind == .tooComplex, "\(String(describing: refused))")
        #expect(ContinuousClock.now - started < .seconds(60), "stopped, not run to its end")
    }
}
