@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// imgproxy Pro's info options: each field is present when asked, says
/// what the image holds, and is absent when not asked.
@Suite(.offCooperativePool) struct InfoOptionsTests {
    private func info(_ data: Data, _ configure: (inout InfoOptions) -> Void = { _ in }) async throws -> ImageInfo {
        var asked = InfoOptions()
        configure(&asked)
        return try await ImageProcessor().info(of: data, options: asked)
    }

    @Test func exifFieldsByTitleOrByName() async throws {
        let titled = try await info(try Corpus.data("Blinds.jpg"))
        #expect(titled.exifFields?["Date and Time (Original)"] == "2008:01:22 03:28:22")
        #expect(titled.exifFields?["Manufacturer"] == "Canon" && titled.exifFields?["F-Number"] == "f/5.6")
        let named = try await info(try Corpus.data("Blinds.jpg")) { $0.exifCanonicalNames = true }
        #expect(named.exifFields?["DateTimeOriginal"] == "2008:01:22 03:28:22" && named.exifFields?["Make"] == "Canon")
        let none = try await info(try Corpus.data("Blinds.jpg")) { $0.exif = false }
        #expect(none.exifFields == nil)
        // Size and the source's checksums are of the bytes as sent.
        let data = try Corpus.data("Blinds.jpg")
        let summed = try await info(data) { $0.hashsums = [.md5, .sha256] }
        #expect(summed.size == data.count && summed.hashsums?.count == 2)
        #expect(Hashsum.hex(of: Data("abc".utf8), .md5) == "900150983cd24fb0d6963f7d28e17f72")
        #expect(Hashsum.hex(of: Data("abc".utf8), .sha1) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(Hashsum.hex(of: Data("abc".utf8), .sha256) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func iptcAndXMPRecords() async throws {
        let photo = try Self.jpeg(segments: [Self.photoshopSegment(), Self.xmpSegment(Self.packet)])
        let described = try await info(photo)
        #expect(described.iptc?["Name"] == .text("Spider-Man"))
        #expect(described.iptc?["Keywords"] == .list([.text("spider-man"), .text("menace")]))
        #expect(described.iptc?["Copyright Notice"] == .text("Daily Bugle"))
        guard case .record(let resolution)? = described.photoshop?["resolution"] else {
            Issue.record("no resolution in \(String(describing: described.photoshop))")
            return
        }
        #expect(resolution["XResolution"] == .number(240) && resolution["XResolutionUnit"] == .text("inches"))
        #expect(described.xmp?["dc"] == .record(["creator": .list([.text("Peter B. Parker")]), "title": .text("The web")]))
        #expect(described.xmp?["aux"] == .record(["Lens": .text("16.0-35.0 mm f/4.0")]))
        #expect(described.xmp?["photoshop"] == .record(["DateCreated": .text("2016-09-11T18:44:50.003")]))
        let json = String(decoding: try JSONEncoder().encode(described), as: UTF8.self)
        #expect(json.contains("\"Keywords\":[\"spider-man\",\"menace\"]") && json.contains("\"XResolution\":240"), "\(json)")

        let quiet = try await info(photo) { $0.iptc = false; $0.xmp = false }
        #expect(quiet.iptc == nil && quiet.photoshop == nil && quiet.xmp == nil)
    }

    @Test func hostileMetadataGivesWhatItCanAndNothingElse() async throws {
        // Lengths past the end, a dataset claiming 64 KiB: read up to the fault.
        var block = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0x7F, 0xFF, 0xFF, 0xFF]
        block += [0x1C, 2, 5, 0xFF, 0x00] + Array("short".utf8)
        #expect(IPTC.read(block).iptc.isEmpty)
        let truncated = Array("Photoshop 3.0\0".utf8) + Array("8BIM".utf8) + [0x04, 0x04, 0, 0, 0, 0, 0, 12]
            + [0x1C, 2, 5, 0, 3] + Array("Ann".utf8) + [0x1C, 2, 25, 0x01, 0x00]
        #expect(IPTC.read(truncated).iptc == ["Name": .text("Ann")])
        // Entities and DTDs are never parsed.
        let bomb = Array("<!DOCTYPE x [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;&a;&a;\">]><x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"><rdf:Description xmlns:dc=\"http://purl.org/dc/elements/1.1/\" dc:format=\"&b;\"/></rdf:RDF></x:xmpmeta>".utf8)
        #expect(XMP.read(bomb).isEmpty)
        let deep = Array(("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">" + String(repeating: "<a>", count: 5000) + String(repeating: "</a>", count: 5000) + "</x:xmpmeta>").utf8)
        #expect(XMP.read(deep).isEmpty)
        #expect(XMP.read(Array("not xml".utf8)).isEmpty)
    }

    @Test func colourspaceBandsFormatPagesAndAlpha() async throws {
        func facts(_ data: Data) async throws -> ImageInfo {
            try await info(data) { $0.colourspace = true; $0.bands = true; $0.sampleFormat = true; $0.pagesNumber = true; $0.alpha = true; $0.checkTransparency = true }
        }
        let jpeg = try await facts(try Fixtures.data("landscape.jpg"))
        #expect(jpeg.colourspace == "srgb" && jpeg.bands == 3 && jpeg.sampleFormat == "uchar" && jpeg.pagesNumber == 1)
        #expect(jpeg.hasAlpha == false && jpeg.hasTransparency == false)
        let grey = try await facts(try Fixtures.data("gray.jpg"))
        #expect(grey.colourspace == "b-w" && grey.bands == 1)
        let cmyk = try await facts(try Fixtures.data("cmyk.jpg"))
        #expect(cmyk.colourspace == "cmyk" && cmyk.bands == 4)
        #expect(try await facts(try Fixtures.data("sixteen-bit.png")).sampleFormat == "ushort")
        #expect(try await facts(try Fixtures.data("animated.gif")).pagesNumber ?? 0 > 1)
        let transparent = try await facts(try Fixtures.data("alpha.png"))
        #expect(transparent.hasAlpha == true && transparent.hasTransparency == true)
        // Alpha, every pixel opaque: no transparency.
        let opaque = try await facts(try solidRGBA([10, 20, 30, 255]))
        #expect(opaque.hasAlpha == true && opaque.hasTransparency == false)
        // One pixel of 64 x 64 a little transparent is found.
        var pixels = RawPixels(width: 64, height: 64, filledWith: [10, 20, 30, 255])
        pixels.bytes[(40 * 64 + 50) * 4 + 3] = 254
        let onePixel = try await facts(Data(try pixels.pngData()))
        #expect(onePixel.hasTransparency == true)
        // A frame of an animation: its own pixels, the source's page count.
        let third = try await info(try Fixtures.data("animated.gif")) { $0.page = 2; $0.average = true; $0.pagesNumber = true }
        let first = try await info(try Fixtures.data("animated.gif")) { $0.average = true }
        #expect(third.pagesNumber == 4 && third.frames == 4 && third.average != first.average, "\(String(describing: third.average))")
        do {
            _ = try await info(try Fixtures.data("animated.gif")) { $0.page = 4 }
            Issue.record("page 4 of 4 was described")
        } catch {
            #expect((error as? DarkroomError)?.reason.contains("4 pages") == true, "\(error)")
        }
        let plain = try await info(try Fixtures.data("alpha.png"))
        #expect(plain.colourspace == nil && plain.bands == nil && plain.hasAlpha == nil && plain.hasTransparency == nil)
    }

    @Test func paletteAverageAndDominantColours() async throws {
        // Left half red, right half blue.
        var pixels = RawPixels(width: 40, height: 20, filledWith: [220, 20, 30, 255])
        for y in 0..<20 { for x in 20..<40 { pixels.bytes.replaceSubrange((y * 40 + x) * 4..<(y * 40 + x) * 4 + 4, with: [20, 40, 200, 255]) } }
        let halves = try await info(Data(try pixels.pngData())) { $0.paletteColours = 8; $0.average = true; $0.dominantColours = true }
        let palette = try #require(halves.palette)
        // Two colours are all there is: eight are not invented.
        #expect(palette.count == 2, "\(palette)")
        #expect(palette.contains { $0.red > 200 && $0.blue < 60 } && palette.contains { $0.blue > 180 && $0.red < 40 })
        let average = try #require(halves.average)
        #expect(abs(average.red - 120) <= 3 && abs(average.green - 30) <= 3 && abs(average.blue - 115) <= 3, "\(average)")
        let swatches = try #require(halves.dominantColours)
        #expect(swatches["vibrant"].map { $0.red > 180 || $0.blue > 180 } == true, "\(swatches)")
        #expect(swatches["muted"] == nil, "nothing in the picture is muted")
        let built = try await info(Data(try pixels.pngData())) { $0.dominantColours = true; $0.buildMissedColours = true }
        #expect(built.dominantColours?.count == 6)
        let json = String(decoding: try JSONEncoder().encode(built), as: UTF8.self)
        #expect(json.contains("\"dominant_colors\":{") && !json.contains("\"A\""), "dominant colours are R, G and B, as Pro's: \(json)")

        // Transparent pixels are left out of the average unless asked.
        var halfClear = RawPixels(width: 20, height: 20, filledWith: [0, 200, 0, 255])
        for p in 0..<200 { halfClear.bytes.replaceSubrange(p * 4..<p * 4 + 4, with: [0, 0, 0, 0]) }
        let ignoring = try await info(Data(try halfClear.pngData())) { $0.average = true }
        #expect(ignoring.average.map { $0.green > 190 && $0.alpha == 255 } == true, "\(String(describing: ignoring.average))")
        let counting = try await info(Data(try halfClear.pngData())) { $0.average = true; $0.averageIgnoresTransparent = false }
        #expect(counting.average.map { (90...110).contains($0.green) && (120...135).contains($0.alpha) } == true)
    }

    @Test func hashesPlaceholdersAndCrop() async throws {
        let photo = try Corpus.data("Blinds.jpg")
        let asked = try await info(photo) { $0.perceptualHash = true; $0.thumbHashHex = true; $0.blurHashComponents = (3, 3) }
        let hash = try #require(asked.perceptualHash)
        #expect(hash.count == 16 && UInt64(hash, radix: 16) != nil)
        // ThumbHash's bytes, in hex as Pro writes them, base64 as Darkroom does.
        let hexBytes = asked.thumbHashHex.flatMap { Self.bytes(hex: $0) }
        let base64Bytes = Data(base64Encoded: asked.thumbHash).map { [UInt8]($0) }
        #expect(hexBytes != nil && hexBytes == base64Bytes)
        let blurHashLength = 1 + 1 + 4 + 8 * 2
        #expect(asked.blurHash.count == blurHashLength, "3 x 3 components")
        // Alike when resized and re-encoded; unlike another photo.
        let smaller = try ImageProcessor.processBlocking(photo, options: ProcessingOptions(operations: [.resize(Resize(width: 600, height: 600))],
                                                                                          output: OutputOptions(format: .jpeg, quality: 50)))
        let other = try await info(try Corpus.data("Dune.jpg")) { $0.perceptualHash = true }
        let resized = try await info(smaller.data) { $0.perceptualHash = true }
        let near = try #require(PerceptualHash.distance(hash, resized.perceptualHash ?? ""))
        let far = try #require(PerceptualHash.distance(hash, other.perceptualHash ?? ""))
        #expect(near <= 6 && far >= 16, "near \(near), far \(far)")

        // 240 x 160 upright.
        let landscape = try Fixtures.data("landscape.jpg")
        let corner = try await info(landscape) { $0.crop = InfoCrop(width: 100, height: 40, gravity: Gravity(.southEast)) }
        let expected = ImageInfo.RelativeRect(left: 140.0 / 240, top: 120.0 / 160, width: 100.0 / 240, height: 40.0 / 160)
        #expect(corner.crop == expected)
        let half = try await info(landscape) { $0.crop = InfoCrop(width: 0.5, height: 0, gravity: Gravity(.west, x: 10)) }
        let expectedHalf = ImageInfo.RelativeRect(left: 10.0 / 240, top: 0, width: 0.5, height: 1)
        #expect(half.crop == expectedHalf)
        let smart = try await info(photo) { $0.crop = InfoCrop(width: 0.5, height: 0.5, gravity: Gravity(.smart)) }
        let rect = try #require(smart.crop)
        #expect(rect.width == 0.5 && rect.height == 0.5 && (0...0.5).contains(rect.left) && (0...0.5).contains(rect.top))
    }

    @Test func outOfRangeOptionsAreRefused() async throws {
        for configure: (inout InfoOptions) -> Void in [{ $0.paletteColours = 1 }, { $0.paletteColours = 257 }, { $0.blurHashComponents = (10, 3) },
                                                       { $0.crop = InfoCrop(width: -1, height: 1) }] {
            do {
                _ = try await info(try Fixtures.data("landscape.jpg"), configure)
                Issue.record("an option out of range was accepted")
            } catch {
                #expect((error as? DarkroomError)?.kind == .invalidOption, "\(error)")
            }
        }
    }

    // MARK: - Making the metadata

    private static let packet = """
    <?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
    <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
    <rdf:Description rdf:about="" xmlns:aux="http://ns.adobe.com/exif/1.0/aux/" aux:Lens="16.0-35.0 mm f/4.0"/>
    <rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/">
    <dc:creator><rdf:Seq><rdf:li>Peter B. Parker</rdf:li></rdf:Seq></dc:creator>
    <dc:title><rdf:Alt><rdf:li xml:lang="fr">La toile</rdf:li><rdf:li xml:lang="x-default">The web</rdf:li></rdf:Alt></dc:title>
    <photoshop:DateCreated>2016-09-11T18:44:50.003</photoshop:DateCreated>
    </rdf:Description></rdf:RDF></x:xmpmeta>
    <?xpacket end="w"?>
    """

    /// APP13: Photoshop's resources, IPTC datasets and a 240 dpi resolution.
    private static func photoshopSegment() -> (UInt8, [UInt8]) {
        func dataset(_ number: UInt8, _ text: String) -> [UInt8] {
            let bytes = Array(text.utf8)
            return [0x1C, 2, number, UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        }
        let iptc = dataset(5, "Spider-Man") + dataset(25, "spider-man") + dataset(25, "menace") + dataset(116, "Daily Bugle")
        func resource(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
            let size = UInt32(data.count)
            return Array("8BIM".utf8) + [UInt8(id >> 8), UInt8(id & 0xFF), 0, 0]
                + [UInt8(size >> 24), UInt8(size >> 16 & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF)]
                + data + (data.count % 2 == 1 ? [0] : [])
        }
        let resolution: [UInt8] = [0, 240, 0, 0, 0, 1, 0, 1, 0, 240, 0, 0, 0, 1, 0, 1]
        return (0xED, Array("Photoshop 3.0\0".utf8) + resource(0x0404, iptc) + resource(0x03ED, resolution))
    }

    private static func xmpSegment(_ packet: String) -> (UInt8, [UInt8]) {
        (0xE1, Array("http://ns.adobe.com/xap/1.0/\0".utf8) + Array(packet.utf8))
    }

    /// A small JPEG with `segments` (marker, body) after its SOI.
    private static func jpeg(segments: [(UInt8, [UInt8])]) throws -> Data {
        let plain = try RawPixels(width: 32, height: 24, filledWith: [90, 140, 200]).encoded(.jpeg(quality: 90, progressive: false))
        var bytes = Array(plain.prefix(2))
        for (marker, body) in segments {
            let length = body.count + 2
            bytes += [0xFF, marker, UInt8(length >> 8), UInt8(length & 0xFF)] + body
        }
        return Data(bytes + plain.dropFirst(2))
    }

    private static func bytes(hex: String) -> [UInt8]? {
        var out: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) ?? hex.endIndex
            guard let byte = UInt8(hex[index..<next], radix: 16) else { return nil }
            out.append(byte)
            index = next
        }
        return out
    }

    private func solidRGBA(_ pixel: [UInt8]) throws -> Data {
        Data(try RawPixels(width: 16, height: 16, filledWith: pixel).pngData())
    }
}
