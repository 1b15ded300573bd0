@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// The thumbnail path (JPEG, PNG and WebP made smaller without libvips)
/// gives what libvips gives: the same size, the same look, the same
/// refusals.
@Suite(.offCooperativePool) struct ThumbnailTests {
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

    /// Every PNG row filter (none, sub, up, average, Paeth; the fixture
    /// uses each in turn) is undone exactly: kept at its own size, the
    /// image has libvips' pixels bit for bit.
    @Test func everyPNGFilterIsUndoneExactly() throws {
        let png = try Fixtures.data("filtered.png")
        let image = try png.withUnsafeBytes { raw in
            try Thumbnail.decode(raw, format: .png, plan: Thumbnail.Plan(shrink: 1, decodedWidth: 240, decodedHeight: 160,
                                                                         horizontalScale: 1, verticalScale: 1,
                                                                         cropLeft: 0, cropTop: 0, cropWidth: 240, cropHeight: 160),
                                 killSwitch: VipsKillSwitch())
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

    /// A WebP or AVIF answer of the usual request takes the path, and is
    /// what libvips' run answers: the same format and size, and pixels that
    /// differ only as two encodes of pixels within the contract's bound do.
    @Test(arguments: [ImageFormat.webp, .avif])
    func webpAndAVIFAnswersTakeThePath(format: ImageFormat) async throws {
        let data = try Corpus.data("Aqua.jpg")
        let options = ProcessingOptions(operations: [.resize(Resize(width: 512, height: 512))], output: OutputOptions(format: format, quality: 80))
        let (fast, taken, reference) = try await onOwnThread {
            let run = ProcessingRun(data: data, options: options, killSwitch: KillSwitch())
            let taken = try data.withUnsafeBytes { raw in try run.thumbnail(raw, format: .jpeg) }
            return (try run.run(), taken, try ProcessingRun(data: data, options: options, killSwitch: KillSwitch(), usesThumbnail: false).run())
        }
        #expect(taken?.format == format)
        #expect(fast.format == format && reference.format == format)
        #expect(fast.width == reference.width && fast.height == reference.height && fast.width == 512)
        let loader: VImage.Loader = format == .webp ? .webp : .heif
        let (a, b) = (try RawPixels.decode([UInt8](fast.data), loader: loader), try RawPixels.decode([UInt8](reference.data), loader: loader))
        #expect(a.width == b.width && a.height == b.height && a.bands == 3 && b.bands == 3)
        let squares = zip(a.bytes, b.bytes).reduce(0.0) { $0 + pow(Double(Int($1.0) - Int($1.1)), 2) }
        let psnr = 10 * log10(255 * 255 / max(squares / Double(a.bytes.count), 1e-9))
        #expect(psnr > 45, "PSNR \(psnr) dB between the two engines' \(format.rawValue) answers")
    }

    /// An answer in the source's own format takes the path too.
    @Test func anAnswerInTheSourcesFormatTakesThePath() throws {
        let small: [ImageOperation] = [.resize(Resize(width: 100, height: 100))]
        func taken(_ data: Data) throws -> ProcessedImage? {
            let run = ProcessingRun(data: data, options: ProcessingOptions(operations: small), killSwitch: KillSwitch())
            guard case .image(let format) = ImageFormat.sniff(data) else { return nil }
            return try data.withUnsafeBytes { raw in try run.thumbnail(raw, format: format) }
        }
        #expect(try taken(Fixtures.data("landscape.webp"))?.format == .webp)
        #expect(try taken(Fixtures.data("landscape.jpg"))?.format == .jpeg)
        #expect(try taken(Self.converted(try Fixtures.data("landscape.jpg"), to: .png))?.format == .png)
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
