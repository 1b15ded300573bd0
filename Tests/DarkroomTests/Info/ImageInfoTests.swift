@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct ImageInfoTests {
    @Test func aCameraPhoto() async throws {
        let info = try await ImageProcessor().info(of: try Corpus.data("Blinds.jpg"))
        #expect(info.format == .jpeg && info.orientation == 1 && info.frames == 1 && !info.isAnimated)
        let size = try ImageProcessor.processBlocking(try Corpus.data("Blinds.jpg"), options: ProcessingOptions(output: OutputOptions(format: .png)))
        #expect((info.width, info.height) == (size.width, size.height))
        #expect(info.exif.make == "Canon" && info.exif.model == "Canon EOS 350D DIGITAL")
        #expect(info.exif.fNumber == "f/5.6" && info.exif.exposureTime == "1/80 sec." && info.exif.iso == "400")
        #expect(info.exif.focalLength == "107.0 mm" && info.exif.dateTaken == "2008:01:22 03:28:22")
        #expect(info.exif.gps == nil)
        // 4 x 3 components: 1 + 1 + 4 + 11 x 2 characters.
        #expect(info.blurHash.count == 28)
        let thumbHash = try #require(Data(base64Encoded: info.thumbHash))
        #expect((5...40).contains(thumbHash.count))
        #expect(info.dominantColour.count == 6 && UInt32(info.dominantColour, radix: 16) != nil)
    }

    @Test func uprightSizeOrientationAndColour() async throws {
        let rotated = try await ImageProcessor().info(of: try Fixtures.data("right-orientation.jpg"))
        #expect(rotated.orientation == 6 && (rotated.width, rotated.height) == (240, 160))
        // Mostly blue-grey, with a red corner.
        let landscape = try await ImageProcessor().info(of: try Fixtures.data("landscape.jpg"))
        let colour = try #require(UInt32(landscape.dominantColour, radix: 16))
        let (r, b) = (Int(colour >> 16), Int(colour & 0xff))
        #expect(b > r, "\(landscape.dominantColour)")
        // The same picture upright gives the same placeholder.
        #expect(rotated.blurHash.prefix(6) == landscape.blurHash.prefix(6))
        let transparent = try await ImageProcessor().info(of: try Fixtures.data("alpha.png"))
        let hash = try #require(Data(base64Encoded: transparent.thumbHash))
        #expect(hash[2] & 0x80 != 0, "ThumbHash marks the alpha")
    }

    @Test func badInputAndLimits() async throws {
        await #expect(throws: DarkroomError.self) { try await ImageProcessor().info(of: try Fixtures.data("page.html")) }
        await #expect(throws: DarkroomError.self) { try await ImageProcessor().info(of: try Fixtures.data("truncated.jpg")) }
        var small = ImageLimits()
        small.maxSourcePixels = 1000
        do {
            _ = try await ImageProcessor().info(of: try Fixtures.data("landscape.jpg"), limits: small)
            Issue.record("over the pixel limit, yet read")
        } catch {
            #expect((error as? DarkroomError)?.kind == .tooManyPixels)
        }
    }

    @Test func exifTextAndGPS() {
        #expect(EXIFSummary.readable("Canon (Canon, ASCII, 6 components, 6 bytes)") == "Canon")
        #expect(EXIFSummary.readable("a, b (a, b, ASCII, 5 components, 5 bytes)") == "a, b")
        #expect(EXIFSummary.readable("x ( , ASCII, 1 components, 1 bytes)") == nil)
        let latitude = EXIFSummary.degrees("41/1 53/1 2470/100 (41, 53, 24.70, Rational, 3 components, 24 bytes)")
        #expect(abs((latitude ?? 0) - (41 + 53.0 / 60 + 24.7 / 3600)) < 1e-9)
        #expect(EXIFSummary.degrees("1/0 2/1 3/1 (x, Rational, 3 components, 24 bytes)") == nil)
        #expect(EXIFSummary.degrees("400/1 0/1 0/1") == nil)
        let fields = ["exif-ifd3-GPSLatitude": "41/1 53/1 2470/100 (41, 53, 24.70, Rational, 3 components, 24 bytes)",
                      "exif-ifd3-GPSLatitudeRef": "S (S, ASCII, 2 components, 2 bytes)",
                      "exif-ifd3-GPSLongitude": "12/1 30/1 0/1 (12, 30, 0.00, Rational, 3 components, 24 bytes)",
                      "exif-ifd3-GPSLongitudeRef": "E (E, ASCII, 2 components, 2 bytes)"]
        #expect(EXIFSummary(field: { fields[$0] }, includeGPS: false).gps == nil, "only when asked for")
        let gps = EXIFSummary(field: { fields[$0] }, includeGPS: true).gps
        #expect(gps.map { $0.latitude < -41.8 && $0.latitude > -41.9 && $0.longitude == 12.5 } == true)
    }
}
