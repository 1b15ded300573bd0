@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct FormatTests {
    @Test(arguments: [
        ("landscape.jpg", ImageFormat.jpeg), ("alpha.png", .png), ("landscape.webp", .webp),
        ("landscape.avif", .avif), ("landscape.tif", .tiff), ("landscape.gif", .gif),
    ])
    func decodesEveryReadableFormat(fixture: String, format: ImageFormat) throws {
        let result = try process(fixture: fixture, output: OutputOptions(format: .png))
        #expect(result.source.format == format)
        #expect((result.width, result.height) == (240, 160))
        #expect(isRed(try pixels(of: result).pixel(x: 10, y: 10)))
    }

    @Test(arguments: ImageFormat.encodable.filter(ImageFormat.decodable.contains))
    func roundTripsEveryWritableFormat(format: ImageFormat) throws {
        var limits = ImageLimits()
        limits.jpegXL = format == .jxl
        let encoded = try process(try Fixtures.data("landscape.jpg"), ProcessingOptions(output: OutputOptions(format: format, quality: 90), limits: limits))
        #expect(ImageFormat.sniff(encoded.data) == .image(format))
        // Read back what was written, through the same processor.
        let again = try process(encoded.data, ProcessingOptions(output: OutputOptions(format: .png), limits: limits))
        #expect(again.source.format == format)
        #expect((again.width, again.height) == (240, 160))
        #expect(isRed(try pixels(of: again).pixel(x: 10, y: 10)))
    }

    /// Written, not read: a BMP or ICO source is refused by name.
    @Test(arguments: [ImageFormat.bmp, .ico])
    func writtenOnlyFormatsAreNamedWhenSent(format: ImageFormat) throws {
        let encoded = try process(fixture: "landscape.jpg", output: OutputOptions(format: format))
        let error = #expect(throws: DarkroomError.self) { try process(encoded.data, ProcessingOptions(output: OutputOptions(format: .png))) }
        #expect(error?.kind == .notAnImage && error?.reason.contains("writes but does not read") == true, "\(String(describing: error))")
    }

    @Test func jpegXLOnlyWhereTheLimitsAllowIt() throws {
        // Off by default: neither read nor written, each with its reason.
        let read = #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jxl") }
        #expect(read?.kind == .notAnImage && read?.reason.contains("JPEG XL is off") == true, "\(String(describing: read))")
        let write = #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", output: OutputOptions(format: .jxl)) }
        #expect(write?.kind == .cannotEncode && write?.reason.contains("JPEG XL is off") == true, "\(String(describing: write))")

        var on = ProcessingOptions(output: OutputOptions(format: .png))
        on.limits.jpegXL = true
        let decoded = try process(try Fixtures.data("landscape.jxl"), on)
        #expect(decoded.source.format == .jxl && (decoded.width, decoded.height) == (240, 160))
        #expect(isRed(try pixels(of: decoded).pixel(x: 10, y: 10)))
        // No format asked: a JPEG XL source is answered as JPEG.
        on.output = OutputOptions()
        #expect(try process(try Fixtures.data("landscape.jxl"), on).format == .jpeg)
        // The pixel limit holds for it as for any format.
        on.limits.maxSourcePixels = 240 * 160 - 1
        #expect(throws: DarkroomError.self) { try process(try Fixtures.data("landscape.jxl"), on) }
    }

    @Test func anEnforcedThumbnailIsTheAVIFsOwn() throws {
        // thumbnail.avif: the 240 x 160 landscape with a 64 x 42 thumbnail.
        var options = ProcessingOptions(output: OutputOptions(format: .png))
        let whole = try process(try Fixtures.data("thumbnail.avif"), options)
        #expect((whole.source.width, whole.width) == (240, 240))
        options.enforceThumbnail = true
        let thumbnail = try process(try Fixtures.data("thumbnail.avif"), options)
        #expect((thumbnail.source.width, thumbnail.source.height) == (64, 42))
        #expect(isRed(try pixels(of: thumbnail).pixel(x: 3, y: 3)))
        #expect(options.identifier != ProcessingOptions(output: OutputOptions(format: .png)).identifier)
        // Without a thumbnail, or not HEIF: the image itself.
        #expect(try process(try Fixtures.data("landscape.avif"), options).width == 240)
        #expect(try process(try Fixtures.data("landscape.jpg"), options).width == 240)
    }

    @Test(arguments: [ImageFormat.jpeg, .webp])
    func aFormatsOwnQualityIsTheOneWritten(format: ImageFormat) throws {
        // Both paths: the JPEG one without libvips (a resize first) and libvips'.
        for operations in [[ImageOperation.resize(Resize(width: 120, height: 120))], []] {
            let own = try process(fixture: "landscape.jpg", operations, output: OutputOptions(format: format, quality: 95, formatQuality: [format: 30]))
            let plain = try process(fixture: "landscape.jpg", operations, output: OutputOptions(format: format, quality: 30))
            #expect(own.data == plain.data, "\(format) at its own quality")
            let other = try process(fixture: "landscape.jpg", operations, output: OutputOptions(format: format, quality: 95, formatQuality: [.avif: 30]))
            #expect(other.data != plain.data, "another format's quality does not apply")
        }
    }

    @Test(arguments: [ImageFormat.jpeg, .webp])
    func maxBytesLowersTheQualityUntilTheAnswerFits(format: ImageFormat) throws {
        let photo = try Corpus.data("Aqua.jpg")
        func encode(_ output: OutputOptions) throws -> ProcessedImage {
            try process(photo, ProcessingOptions(operations: [.resize(Resize(width: 800, height: 800))], output: output))
        }
        let full = try encode(OutputOptions(format: format, quality: 90))
        var limited = OutputOptions(format: format, quality: 90)
        limited.maxBytes = full.data.count / 3
        let fitted = try encode(limited)
        #expect(fitted.data.count <= full.data.count / 3, "\(fitted.data.count) bytes for a limit of \(full.data.count / 3)")
        #expect((fitted.width, fitted.height) == (full.width, full.height))
        #expect(try pixels(of: fitted).width == 800)
        // A limit nothing meets: the answer at quality 10 or below, not an error.
        limited.maxBytes = 100
        let smallest = try encode(limited)
        #expect(smallest.data.count > 100 && smallest.data.count < fitted.data.count)
        // PNG has no quality to lower: the limit does not apply.
        var png = OutputOptions(format: .png)
        png.maxBytes = 100
        #expect(try encode(png).data == (try encode(OutputOptions(format: .png))).data)
    }

    @Test func skipProcessingAnswersTheSourceAsItCame() throws {
        let source = try Fixtures.data("landscape.webp")
        var output = OutputOptions()
        output.skipProcessing = [.webp]
        let resize = [ImageOperation.resize(Resize(width: 50, height: 50))]
        let skipped = try process(source, ProcessingOptions(operations: resize, output: output))
        #expect(skipped.data == source && skipped.format == .webp && (skipped.width, skipped.height) == (240, 160))
        // Not when another format is asked for, or the client does not take WebP.
        output.format = .png
        #expect(try process(source, ProcessingOptions(operations: resize, output: output)).width == 50)
        output.format = nil
        output.acceptedFormats = [.jpeg]
        #expect(try process(source, ProcessingOptions(operations: resize, output: output)).format == .jpeg)
        // Nor for other formats; and the limits still hold for the skipped.
        var jpeg = OutputOptions()
        jpeg.skipProcessing = [.webp]
        #expect(try process(fixture: "landscape.jpg", resize, output: jpeg).width == 50)
        let limits = ImageLimits(maxSourcePixels: 100)
        output.acceptedFormats = nil
        #expect(throws: DarkroomError.self) { try process(source, ProcessingOptions(operations: resize, output: output, limits: limits)) }
    }

    @Test func keepsTheSourceFormatWhenNoneIsAsked() throws {
        #expect(try process(fixture: "landscape.webp", output: OutputOptions()).format == .webp)
        #expect(try process(fixture: "landscape.gif", output: OutputOptions()).format == .jpeg)
        #expect(try process(fixture: "landscape.tif", output: OutputOptions()).format == .jpeg, "TIFF and GIF are written only when asked for")
        #expect(try process(fixture: "landscape.tif", output: OutputOptions()).format == .jpeg)
    }

    @Test func progressiveJPEGIsProgressive() throws {
        let plain = try process(fixture: "landscape.jpg", output: OutputOptions(format: .jpeg))
        let progressive = try process(fixture: "landscape.jpg", output: OutputOptions(format: .jpeg, progressive: true))
        // SOF2 (FF C2) marks a progressive JPEG, SOF0 (FF C0) a baseline one.
        #expect(progressive.data.range(of: Data([0xFF, 0xC2])) != nil)
        #expect(plain.data.range(of: Data([0xFF, 0xC2])) == nil)
    }

    @Test(arguments: ["cmyk.jpg", "sixteen-bit.png", "gray.jpg"])
    func unusualInputComesOutAsEightBitSRGB(fixture: String) throws {
        let result = try process(fixture: fixture, output: OutputOptions(format: .png))
        let decoded = try pixels(of: result)   // throws unless 8-bit
        #expect(decoded.bands == 3)
        #expect((decoded.width, decoded.height) == (240, 160))
        if fixture != "gray.jpg" {
            #expect(isRed(decoded.pixel(x: 10, y: 10)), "\(decoded.pixel(x: 10, y: 10))")
        }
    }

    /// The fixture is landscape.jpg in Display P3 with its profile: its red
    /// block is stored as about (232, 51, 34), which is pure red in P3. Once
    /// the profile is stripped, only a transform keeps it red.
    @Test(arguments: [
        ([], ImageFormat.png), ([], .jpeg),
        ([ImageOperation.resize(Resize(width: 120, height: 120))], .jpeg),   // the JPEG fast path's shape
        ([.resize(Resize(width: 120, height: 120)), .sepia(intensity: 0)], .webp),
    ])
    func anotherProfileIsTransformedToSRGB(operations: [ImageOperation], format: ImageFormat) throws {
        let result = try process(fixture: "display-p3.jpg", operations, output: OutputOptions(format: format))
        let pixel = try pixels(of: result).pixel(x: 3, y: 3)
        #expect(pixel[0] > 240 && pixel[1] < 25 && pixel[2] < 25, "\(pixel)")
    }

    /// The fixture: Display P3 with its profile, an EXIF Make of "TestCam"
    /// and an EXIF copyright of "Darkroom Test Photos".
    @Test(arguments: [[], [ImageOperation.resize(Resize(width: 120, height: 120))]])
    func metadataAsImgproxyKeepsIt(operations: [ImageOperation]) throws {
        func run(_ change: (inout OutputOptions) -> Void, as format: ImageFormat = .jpeg) throws -> ProcessedImage {
            var output = OutputOptions(format: format)
            change(&output)
            return try process(fixture: "metadata.jpg", operations, output: output)
        }
        func has(_ image: ProcessedImage, _ text: String) -> Bool { image.data.range(of: Data(text.utf8)) != nil }
        func red(_ image: ProcessedImage) throws -> UInt8 { try pixels(of: image).pixel(x: 3, y: 3)[0] }

        // By default: the copyright alone, the colours in sRGB, no profile.
        let plain = try run { _ in }
        #expect(has(plain, "Darkroom Test Photos") && !has(plain, "TestCam") && !has(plain, "ICC_PROFILE"))
        #expect(try red(plain) > 240)
        let bare = try run { $0.keepCopyright = false }
        #expect(!has(bare, "Darkroom Test Photos") && !has(bare, "Exif") && !has(bare, "ICC_PROFILE"))
        // sm:0 keeps the rest of the EXIF; the profile still goes, as sRGB.
        let kept = try run { $0.stripMetadata = false }
        #expect(has(kept, "Darkroom Test Photos") && has(kept, "TestCam") && !has(kept, "ICC_PROFILE"))
        #expect(try red(kept) > 240)
        // scp:0 keeps the profile and the pixels under it.
        let profiled = try run { $0.stripColourProfile = false; $0.keepCopyright = false }
        #expect(has(profiled, "ICC_PROFILE") && !has(profiled, "TestCam"))
        #expect(try (220...245).contains(red(profiled)))
        // PNG carries the EXIF too.
        #expect(has(try run({ $0.stripMetadata = false }, as: .png), "TestCam"))
    }

    /// A JPEG with an EXIF block holding only IFD0's Copyright, as `bytes`.
    static func withCopyright(_ bytes: [UInt8]) throws -> Data {
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8, 0, 1, 0x82, 0x98, 0, 2]
        tiff += [0, 0, 0, UInt8(bytes.count)] + (bytes.count <= 4 ? bytes + [UInt8](repeating: 0, count: 4 - bytes.count) : [0, 0, 0, 26])
        tiff += [0, 0, 0, 0] + (bytes.count > 4 ? bytes : [])
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        let app1: [UInt8] = [0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        let jpeg = try Fixtures.data("landscape.jpg")
        return jpeg.prefix(2) + Data(app1) + jpeg.dropFirst(2)
    }

    /// The copyright an output carries, as its bytes say.
    static func copyright(of jpeg: Data) -> String? {
        guard let start = jpeg.range(of: Data("Exif\0\0".utf8))?.lowerBound else { return nil }
        let length = Int(jpeg[start - 2]) << 8 | Int(jpeg[start - 1])
        return Data(jpeg[start..<(start + length - 2)]).withUnsafeBytes { SourceFacts.exifCopyright(payload: $0) }
    }

    /// keep_copyright keeps the source's value, not libexif's rendering of
    /// it ("x (Photographer) - y (Editor)", which nested a level on every
    /// pass), through either engine and through two passes; a blank one is
    /// dropped.
    @Test(arguments: [
        ([UInt8]("Jane Doe".utf8) + [0] + [UInt8]("Studio".utf8) + [0], "Jane Doe"),
        ([UInt8]("Ann (c) 2024".utf8) + [0], "Ann (c) 2024"),
        ([UInt8]("Kai".utf8) + [0], "Kai"),
        ([32, 0, 32, 0], nil),
    ] as [([UInt8], String?)])
    func copyrightIsKeptAsTheSourcesBytes(bytes: [UInt8], expected: String?) throws {
        let source = try Self.withCopyright(bytes)
        #expect(Self.copyright(of: source) == (bytes[0] == 32 ? " " : expected), "the test's own source reads back")
        for operations in [[], [ImageOperation.resize(Resize(width: 120, height: 120))], [.sepia(intensity: 0.5)]] {
            let options = ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg))
            let once = try process(source, options)
            let twice = try process(once.data, options)
            #expect(Self.copyright(of: once.data) == expected, "\(operations)")
            #expect(Self.copyright(of: twice.data) == expected, "\(operations), a second pass")
            #expect(once.data.range(of: Data("(Photographer)".utf8)) == nil && twice.data.range(of: Data("(Photographer)".utf8)) == nil)
        }
    }

    /// An AVIF's EXIF sits after an offset to its TIFF header; its
    /// copyright is kept too, on the thumbnail path and off it.
    @Test func anAVIFsCopyrightIsKept() throws {
        try VipsRuntime.start()
        let source = try Self.withCopyright([UInt8]("Jane Doe".utf8) + [0]).withUnsafeBytes { raw in
            Data(try VImage.load(raw, loader: .jpeg).encodedInTest(.avif(quality: 63), strip: false))
        }
        for operations in [[ImageOperation.resize(Resize(width: 120, height: 120))], [.blur(sigma: 1)]] {
            let result = try process(source, ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg)))
            #expect(Self.copyright(of: result.data) == "Jane Doe", "\(operations)")
        }
    }

    @Test func metadataIsStripped() throws {
        let result = try process(fixture: "right-orientation.jpg", output: OutputOptions(format: .jpeg))
        #expect(result.data.range(of: Data("Exif".utf8)) == nil)
    }
}

@Suite(.offCooperativePool) struct OrientationTests {
    @Test func orientationSixComesOutUpright() throws {
        // Stored as 160 x 240, tagged "rotate 90 clockwise to show".
        let result = try process(fixture: "right-orientation.jpg")
        #expect((result.width, result.height) == (240, 160))
        #expect(isRed(try pixels(of: result).pixel(x: 10, y: 10)))
    }

    @Test func resizeIsMeasuredOnTheUprightImage() throws {
        let result = try process(fixture: "right-orientation.jpg", [.resize(Resize(width: 120, height: 120))])
        #expect((result.width, result.height) == (120, 80))
    }

    @Test func autoRotateCanBeTurnedOff() throws {
        let result = try process(fixture: "right-orientation.jpg", autoRotate: false)
        #expect((result.width, result.height) == (160, 240))
    }
}
