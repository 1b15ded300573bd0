@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// The thumbnail path (JPEG, PNG and WebP made smaller without libvips)
/// gives what libvips gives: the same size, the same look, the same
/// refusals.
@Suite struct ThumbnailTests {
    func run(_ data: Data, _ operations: [ImageOperation], quality: Int = 80, thumbnail: Bool) throws -> ProcessedImage {
        let options = ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg, quality: quality))
        return try ProcessingRun(data: data, options: options, killSwitch: KillSwitch(), usesThumbnail: thumbnail).run()
    }

    /// Whether the run takes the thumbnail path.
    func takesThePath(_ data: Data, _ operations: [ImageOperation], autoRotate: Bool = true) throws -> Bool {
        let options = ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg), autoRotate: autoRotate)
        let run = ProcessingRun(data: data, options: options, killSwitch: KillSwitch())
        guard case .image(let format) = ImageFormat.sniff(data) else { return false }
        return try data.withUnsafeBytes { raw in try run.thumbnail(raw, format: format) } != nil
    }

    /// A corpus photo in another format, made by libvips at full size.
    static func converted(_ photo: Data, to format: ImageFormat) throws -> Data {
        let options = ProcessingOptions(operations: [], output: OutputOptions(format: format, quality: 90))
        return try ProcessingRun(data: photo, options: options, killSwitch: KillSwitch(), usesThumbnail: false).run().data
    }

    /// The mean absolute difference per channel between two images of one
    /// size, or nil when their sizes or bands differ.
    func meanDifference(_ a: ProcessedImage, _ b: ProcessedImage) throws -> Double? {
        let pa = try pixels(of: a), pb = try pixels(of: b)
        guard pa.width == pb.width, pa.height == pb.height, pa.bands == pb.bands else { return nil }
        var total = 0
        pa.bytes.withUnsafeBufferPointer { x in
            pb.bytes.withUnsafeBufferPointer { y in
                for i in 0..<x.count { total += abs(Int(x[i]) - Int(y[i])) }
            }
        }
        return Double(total) / Double(pa.bytes.count)
    }

    static let shapes: [[ImageOperation]] = [
        [.resize(Resize(width: 512, height: 512))],
        [.resize(Resize(width: 300, height: 300, mode: .fill, gravity: .north))],
        [.resize(Resize(width: 200, height: 400, mode: .fill, gravity: .east))],
        [.resize(Resize(width: 640, height: 100, mode: .force))],
        [.resize(Resize(width: 600, height: nil)), .sepia(intensity: 0.8)],
        [.resize(Resize(width: nil, height: 1000))],
    ]

    /// Every corpus photo in the first shape, three of them in the others:
    /// one run after another on one thread, so that the suite leaves a core
    /// to the tests beside it.
    @Test func everyCorpusPhotoLooksAsLibvipsMakesIt() async throws {
        let photos = Corpus.photos
        try #require(!photos.isEmpty, "the corpus is missing: \(Corpus.photosFolder.path)")
        for (index, operations) in Self.shapes.enumerated() {
            for photo in index == 0 ? photos : Array(photos.prefix(3)) {
                try await expectTheSameAsLibvips(try Data(contentsOf: photo), operations, "\(photo.lastPathComponent), \(operations)")
            }
        }
    }

    /// `source` with `operations` takes the path, and the answer has
    /// libvips' size and looks as libvips' does: both are Lanczos-3 after
    /// the same decode scale, and both lossy, so they differ by JPEG noise,
    /// not by content. On a thread of its own.
    func expectTheSameAsLibvips(_ source: Data, _ operations: [ImageOperation], _ name: String) async throws {
        let (took, fast, reference, difference) = try await onOwnThread {
            let fast = try run(source, operations, thumbnail: true), reference = try run(source, operations, thumbnail: false)
            return (try takesThePath(source, operations), fast, reference, try meanDifference(fast, reference))
        }
        #expect(took, "\(name)")
        #expect(fast.width == reference.width && fast.height == reference.height,
                "\(name): \(fast.width)x\(fast.height) against \(reference.width)x\(reference.height)")
        #expect(fast.source == reference.source)
        let mean = try #require(difference, "\(name): the two answers' pixels differ in size or bands")
        #expect(mean < 2.5, "\(name): mean difference \(mean)")
    }

    /// PNG and WebP versions of corpus photos, in every shape: the same
    /// size and look as libvips makes them. (PNG decodes exactly; WebP
    /// is scaled by libwebp as libvips' loader asks it to, then resampled.)
    @Test(arguments: [ImageFormat.png, .webp])
    func pngAndWebPLookAsLibvipsMakesThem(format: ImageFormat) async throws {
        let photos = Corpus.photos
        try #require(!photos.isEmpty, "the corpus is missing: \(Corpus.photosFolder.path)")
        for photo in photos.prefix(3) {
            let source = try await onOwnThread { try Self.converted(try Data(contentsOf: photo), to: format) }
            for operations in Self.shapes {
                try await expectTheSameAsLibvips(source, operations, "\(photo.lastPathComponent) as \(format), \(operations)")
            }
        }
    }

    /// Every PNG row filter (none, sub, up, average, Paeth; the fixture
    /// uses each in turn) is undone exactly: kept at its own size, the
    /// image has libvips' pixels bit for bit.
    @Test func everyPNGFilterIsUndoneExactly() throws {
        let png = try Fixtures.data("filtered.png")
        let image = try png.withUnsafeBytes { raw in
            try Thumbnail.decode(raw, format: .png, shrink: 1, width: 240, height: 160, killSwitch: VipsKillSwitch())
        }
        let reference = try RawPixels.decode([UInt8](png), loader: .png)
        #expect(reference.width == 240 && reference.height == 160 && reference.bands == 3)
        #expect(image.rgbBytes() == reference.bytes)
    }

    @Test func otherPNGAndWebPKindsGoToLibvips() throws {
        let small: [ImageOperation] = [.resize(Resize(width: 100, height: 100))]
        #expect(try takesThePath(Fixtures.data("landscape.webp"), small))
        #expect(try !takesThePath(Fixtures.data("alpha.png"), small), "transparency")
        #expect(try !takesThePath(Fixtures.data("sixteen-bit.png"), small), "16 bits")
        #expect(try !takesThePath(Fixtures.data("animated.webp"), small), "animation")
        #expect(try !takesThePath(Fixtures.data("huge-header.png"), small), "too many pixels")
        let png = try Self.converted(try Fixtures.data("landscape.jpg"), to: .png)
        #expect(try takesThePath(png, small))
        // Cut short: the decoder declines, and libvips says what is wrong.
        #expect(try !takesThePath(png.prefix(png.count / 2), small))
        var damaged = png
        damaged[damaged.count / 2] ^= 0xFF
        #expect(try !takesThePath(damaged, small), "a CRC that does not match")
    }

    @Test func qualityAndChromaSubsamplingAreLibvips() async throws {
        let data = try Corpus.data("Aqua.jpg")
        let operations: [ImageOperation] = [.resize(Resize(width: 512, height: 512))]
        for quality in [50, 80, 90, 95] {
            let (fast, reference) = try await onOwnThread {
                (try run(data, operations, quality: quality, thumbnail: true), try run(data, operations, quality: quality, thumbnail: false))
            }
            #expect(JPEGMarkers(fast.data).lumaSampling == JPEGMarkers(reference.data).lumaSampling, "quality \(quality)")
            #expect(JPEGMarkers(fast.data).lumaTableSum == JPEGMarkers(reference.data).lumaTableSum, "quality \(quality)")
            #expect(JPEGMarkers(fast.data).isBaseline)
        }
    }

    @Test func rotatedGreyCMYKAndEnlargedImagesGoToLibvips() throws {
        let photo = try Fixtures.data("landscape.jpg")
        let small: [ImageOperation] = [.resize(Resize(width: 100, height: 100))]
        #expect(try takesThePath(photo, small))
        #expect(try !takesThePath(Fixtures.data("cmyk.jpg"), small))
        #expect(try !takesThePath(Fixtures.data("display-p3.jpg"), small))
        #expect(try !takesThePath(Fixtures.data("gray.jpg"), small))
        #expect(try !takesThePath(Fixtures.data("truncated.jpg"), small))
        #expect(try !takesThePath(photo, [.resize(Resize(width: 10_000, height: 10_000, enlarge: true))]))
        #expect(try !takesThePath(photo, [.resize(Resize(width: 100, height: 100, mode: .fill, gravity: .smart))]))
        #expect(try !takesThePath(photo, small + [.grayscale]))
        #expect(try !takesThePath(photo, [.sepia(intensity: 0.5)] + small))
        for orientation in 2...8 {
            let rotated = EXIFOrientation.jpeg(photo, orientation: orientation)
            #expect(try !takesThePath(rotated, small), "orientation \(orientation)")
            #expect(try takesThePath(rotated, small, autoRotate: false), "orientation \(orientation), not rotated")
            #expect(try !takesThePath(Self.bigEndianEXIF(photo, orientation: orientation), small), "big-endian \(orientation)")
        }
        #expect(try takesThePath(EXIFOrientation.jpeg(photo, orientation: 1), small))
    }

    @Test func aPulledKillSwitchStopsTheDecode() throws {
        let data = try Corpus.data("Aqua.jpg")
        let killSwitch = KillSwitch()
        killSwitch.pull()
        let run = ProcessingRun(data: data, options: ProcessingOptions(operations: [.resize(Resize(width: 512, height: 512))],
                                                                       output: OutputOptions(format: .jpeg)),
                                killSwitch: killSwitch)
        let error = #expect(throws: DarkroomError.self) {
            try data.withUnsafeBytes { raw in try run.thumbnail(raw, format: .jpeg) }
        }
        #expect(error?.kind == .cancelled)
    }

    /// An APP1 with a big-endian TIFF header, as some cameras write it.
    static func bigEndianEXIF(_ jpeg: Data, orientation: Int) -> Data {
        let tiff: [UInt8] = [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x01,
                             0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, 0x00, UInt8(orientation), 0x00, 0x00,
                             0x00, 0x00, 0x00, 0x00]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        var out = Data([0xFF, 0xD8, 0xFF, 0xE1, 0x00, UInt8(payload.count + 2)])
        out.append(contentsOf: payload)
        out.append(jpeg.dropFirst(2))
        return out
    }
}
