@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// The formats imgproxy writes besides the web's (HEIC, BMP, ICO), each
/// read back by a decoder other than the writer: libheif for HEIC, Pillow
/// for BMP and ICO.
@Suite(.offCooperativePool) struct OutputFormatTests {
    /// The same options written losslessly, to compare pixels with.
    func reference(_ fixture: String, _ operations: [ImageOperation]) throws -> RawPixels {
        try pixels(of: try process(fixture: fixture, operations, output: OutputOptions(format: .png)))
    }

    @Test func heicIsHEVCInHEIF() throws {
        let image = try process(fixture: "landscape.jpg", [.resize(Resize(width: 200, height: nil))], output: OutputOptions(format: .heic))
        #expect(image.format == .heic && image.format.mimeType == "image/heif")
        #expect(ImageFormat.sniff(image.data) == ImageFormat.Sniffed.image(.heic))
        // The codec, from the file's own boxes: HEVC's configuration (hvcC)
        // and a heic brand, no AV1 (av1C), as an AVIF would have.
        let bytes = [UInt8](image.data)
        func has(_ box: String) -> Bool { bytes.indices.dropLast(4).contains { Array(bytes[$0..<$0 + 4]) == Array(box.utf8) } }
        #expect(has("hvcC") && !has("av1C"), "the answer's codec configuration")
        #expect(Array(bytes[8..<12]) == Array("heic".utf8) || has("heic"), "the answer's brand")
        let decoded = try RawPixels.decode([UInt8](image.data), loader: .heif)
        #expect(decoded.width == 200 && decoded.width == image.width && decoded.height == image.height)
    }

    @Test func bmpHasThePixelsOfTheImage() throws {
        let operations: [ImageOperation] = [.resize(Resize(width: 64, height: nil))]
        let image = try process(fixture: "landscape.jpg", operations, output: OutputOptions(format: .bmp))
        #expect(image.format.mimeType == "image/bmp")
        let expected = try reference("landscape.jpg", operations)
        let points = [(0, 0), (63, 0), (17, 23), (63, expected.height - 1)]
        let decoded = try PillowDecoder.decode(image.data, points: points)
        #expect(decoded.format == "BMP" && decoded.mode == "RGB")
        #expect(decoded.width == 64 && decoded.height == expected.height)
        for (index, point) in points.enumerated() {
            #expect(decoded.pixels[index] == expected.pixel(x: point.0, y: point.1).map(Int.init), "at \(point)")
        }
        // 64 x 3 bytes a row is a multiple of 4; an odd width is padded.
        let odd = try process(fixture: "landscape.jpg", [.resize(Resize(width: 33, height: nil))], output: OutputOptions(format: .bmp))
        let oddReference = try reference("landscape.jpg", [.resize(Resize(width: 33, height: nil))])
        let last = try PillowDecoder.decode(odd.data, points: [(32, oddReference.height - 1)])
        #expect(last.pixels[0] == oddReference.pixel(x: 32, y: oddReference.height - 1).map(Int.init))
    }

    @Test func bmpKeepsAlphaAndGrey() throws {
        let alpha = try process(fixture: "alpha.png", output: OutputOptions(format: .bmp))
        let expected = try reference("alpha.png", [])
        let points = [(0, 0), (expected.width / 2, expected.height / 2)]
        let decoded = try PillowDecoder.decode(alpha.data, points: points)
        #expect(decoded.mode == "RGBA")
        for (index, point) in points.enumerated() {
            #expect(decoded.pixels[index] == expected.pixel(x: point.0, y: point.1).map(Int.init), "at \(point)")
        }
        let grey = try process(try solidPNG([77], width: 5, height: 3), ProcessingOptions(operations: [], output: OutputOptions(format: .bmp)))
        let greyDecoded = try PillowDecoder.decode(grey.data, points: [(4, 2)])
        // Grey is answered as sRGB, as every step of the pipeline sees it.
        #expect(greyDecoded.pixels[0].prefix(3).allSatisfy { $0 == 77 }, "\(greyDecoded.pixels[0])")
    }

    @Test func icoIsAPNGOfAtMost256Pixels() throws {
        let image = try process(fixture: "landscape.jpg", [.resize(Resize(width: 600, height: nil, enlarge: true))], output: OutputOptions(format: .ico))
        #expect(image.format.mimeType == "image/x-icon")
        #expect(max(image.width, image.height) == 256)
        let decoded = try PillowDecoder.decode(image.data)
        #expect(decoded.format == "ICO" && decoded.width == image.width && decoded.height == image.height)
        // One directory entry, its image a PNG right after the 22 bytes.
        let bytes = [UInt8](image.data)
        #expect(bytes[0..<6] == [0, 0, 1, 0, 1, 0])
        #expect(Array(bytes[22..<26]) == [0x89, 0x50, 0x4E, 0x47])

        let small = try process(fixture: "alpha.png", [.resize(Resize(width: 48, height: nil))], output: OutputOptions(format: .ico))
        let smallDecoded = try PillowDecoder.decode(small.data, points: [(0, 0)])
        #expect(smallDecoded.width == 48 && smallDecoded.mode == "RGBA")
        #expect(smallDecoded.pixels[0] == (try reference("alpha.png", [.resize(Resize(width: 48, height: nil))])).pixel(x: 0, y: 0).map(Int.init))
    }
}

/// Each encoder setting changes the file as it says, and the cache key.
@Suite(.offCooperativePool) struct EncoderSettingsTests {
    func output(_ format: ImageFormat, _ change: (inout EncoderSettings) -> Void) -> OutputOptions {
        var output = OutputOptions(format: format)
        change(&output.encoder)
        return output
    }

    @Test func pngInterlacedAndQuantised() throws {
        let plain = try process(fixture: "landscape.jpg", output: OutputOptions(format: .png))
        let interlaced = try process(fixture: "landscape.jpg", output: output(.png) { $0.pngInterlaced = true })
        // IHDR: bit depth at 24, colour type at 25, interlace method at 28.
        #expect([UInt8](plain.data)[28] == 0 && [UInt8](interlaced.data)[28] == 1)
        let quantised = try process(fixture: "landscape.jpg", output: output(.png) {
            $0.pngQuantize = true
            $0.pngQuantizationColours = 16
        })
        let header = [UInt8](quantised.data)
        #expect(header[25] == 3, "a palette image")
        #expect(header[24] == 4, "16 colours take 4 bits")
        #expect(quantised.data.count < plain.data.count / 2)
        #expect(OutputOptions(format: .png).identifier != output(.png) { $0.pngQuantize = true }.identifier)
    }

    @Test func webpCompressionAndEffort() throws {
        // The coded image's chunk, after any VP8X header.
        func chunk(_ image: ProcessedImage) -> String {
            let head = String(decoding: image.data.prefix(256).map { $0 < 0x20 || $0 > 0x7E ? UInt8(ascii: ".") : $0 }, as: UTF8.self)
            return head.contains("VP8L") ? "VP8L" : head.contains("VP8 ") ? "VP8 " : "none"
        }
        let lossy = try process(fixture: "landscape.jpg", output: OutputOptions(format: .webp))
        #expect(chunk(lossy) == "VP8 ")
        let lossless = try process(fixture: "landscape.jpg", output: output(.webp) { $0.webpCompression = .lossless })
        #expect(chunk(lossless) == "VP8L")
        let nearLossless = try process(fixture: "landscape.jpg", output: output(.webp) { $0.webpCompression = .nearLossless })
        #expect(chunk(nearLossless) == "VP8L")
        let hardest = try process(fixture: "landscape.jpg", output: output(.webp) { $0.webpEffort = 6 })
        let easiest = try process(fixture: "landscape.jpg", output: output(.webp) { $0.webpEffort = 1 })
        #expect(hardest.data != easiest.data)
    }

    @Test func avifSubsampling() throws {
        func fullChroma(_ image: ProcessedImage) throws -> Bool? {
            try [UInt8](image.data).withUnsafeBytes { try HEIFStructure.read($0)?.coding.fullChroma }
        }
        let auto = try process(fixture: "landscape.jpg", [.resize(Resize(width: 128, height: nil))], output: OutputOptions(format: .avif))
        #expect(try fullChroma(auto) == false)
        let off = try process(fixture: "landscape.jpg", [.resize(Resize(width: 128, height: nil))], output: output(.avif) { $0.avifSubsample = .off })
        #expect(try fullChroma(off) == true)
        var high = output(.avif) { _ in }
        high.quality = 95
        // auto: full chroma from quality 90.
        let auto95 = try process(fixture: "landscape.jpg", [.resize(Resize(width: 128, height: nil))], output: high)
        #expect(try fullChroma(auto95) == true)
    }

    @Test func jpegWithoutSubsampling() throws {
        let plain = try process(fixture: "landscape.jpg", [.resize(Resize(width: 128, height: nil))], output: OutputOptions(format: .jpeg))
        #expect(JPEGMarkers(plain.data).lumaSampling == "2x2")
        let full = try process(fixture: "landscape.jpg", [.resize(Resize(width: 128, height: nil))], output: output(.jpeg) { $0.jpegNoSubsample = true })
        #expect(JPEGMarkers(full.data).lumaSampling == "1x1")
        // mozjpeg's settings are taken where libvips lacks them: still a JPEG.
        let trellis = try process(fixture: "landscape.jpg", [.resize(Resize(width: 128, height: nil))], output: output(.jpeg) {
            $0.jpegTrellisQuant = true
            $0.jpegOvershootDeringing = true
            $0.jpegQuantTable = 3
        })
        #expect(ImageFormat.sniff(trellis.data) == .image(.jpeg) && trellis.width == 128)
    }

    @Test func svgSettingsAreInTheKey() {
        var plain = ProcessingOptions(operations: [], output: OutputOptions(format: .png))
        let key = plain.identifier
        plain.limits.sanitizesSVG = false
        #expect(plain.identifier != key)
        plain.limits.sanitizesSVG = true
        plain.limits.maxSourcePixels = 10_000
        #expect(plain.identifier != key)
    }

    @Test func rangesAreKept() {
        var settings = EncoderSettings()
        settings.webpEffort = 9
        settings.avifSpeed = -1
        settings.pngQuantizationColours = 1
        settings.jpegQuantTable = 12
        #expect(settings.webpEffort == 6 && settings.avifSpeed == 0 && settings.pngQuantizationColours == 2 && settings.jpegQuantTable == 8)
    }
}

/// imgproxy's `preserve_hdr`: more than 8 bits kept where the answer's
/// format carries them and every step works on them; 8 bits otherwise.
@Suite(.offCooperativePool) struct PreserveHDRTests {
    func output(_ format: ImageFormat, preserving: Bool) -> OutputOptions {
        var output = OutputOptions(format: format)
        output.preserveHDR = preserving
        return output
    }

    /// A PNG's bit depth, from its IHDR.
    func pngBitDepth(_ image: ProcessedImage) -> UInt8 { [UInt8](image.data)[24] }

    @Test func sixteenBitsKeptWhereTheAnswerCarriesThem() throws {
        let resize: [ImageOperation] = [.resize(Resize(width: 120, height: nil))]
        #expect(pngBitDepth(try process(fixture: "sixteen-bit.png", resize, output: output(.png, preserving: false))) == 8)
        let kept = try process(fixture: "sixteen-bit.png", resize, output: output(.png, preserving: true))
        #expect(pngBitDepth(kept) == 16 && kept.width == 120)
        // A step that works in 8 bits (sepia) makes the answer 8-bit.
        #expect(pngBitDepth(try process(fixture: "sixteen-bit.png", resize + [.sepia(intensity: 0.5)], output: output(.png, preserving: true))) == 8)
        // An 8-bit source stays 8-bit.
        #expect(pngBitDepth(try process(fixture: "alpha.png", resize, output: output(.png, preserving: true))) == 8)
        // AVIF at 12 bits; JPEG, which cannot carry more, at 8.
        let avif = try process(fixture: "sixteen-bit.png", resize, output: output(.avif, preserving: true))
        #expect(try [UInt8](avif.data).withUnsafeBytes { try HEIFStructure.read($0)?.coding.highBitDepth } == true)
        let plainAVIF = try process(fixture: "sixteen-bit.png", resize, output: output(.avif, preserving: false))
        #expect(try [UInt8](plainAVIF.data).withUnsafeBytes { try HEIFStructure.read($0)?.coding.highBitDepth } == false)
        let jpeg = try process(fixture: "sixteen-bit.png", resize, output: output(.jpeg, preserving: true))
        #expect(ImageFormat.sniff(jpeg.data) == ImageFormat.Sniffed.image(.jpeg))
        #expect(output(.png, preserving: true).identifier != output(.png, preserving: false).identifier)
    }
}
