import Darkroom
import DarkroomImaging
@testable import DarkroomServer
import Foundation
import Testing
import TestSupport

/// Each kind of source the benchmark sends (JPEG, PNG with a filter chosen
/// per row, lossy and lossless WebP, AVIF, HEIC), served as the benchmark
/// asks for it: the answer has the size asked for and the photo's pixels,
/// in JPEG and in the format a browser's Accept picks.
struct SourceKindServingTests {
    static let kinds: [(name: String, file: String, encoder: VImage.Encoder?)] = [
        ("JPEG", "photo.jpg", nil),
        ("PNG with row filters", "photo.png", .pngFiltered),
        ("WebP", "photo.webp", .webp(quality: 90)),
        ("lossless WebP", "photo-lossless.webp", .webpLossless),
        ("AVIF", "photo.avif", .avif(quality: 70)),
        ("HEIC", "photo.heic", .heic(quality: 70)),
    ]
    static let chromiumAccept = "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"

    /// A folder with the corpus photo written as every kind.
    static func sources() throws -> URL {
        try VipsRuntime.start()
        let folder = try Fixtures.temporaryFolder("darkroom-source-kinds")
        let jpeg = try Corpus.data("Dune.jpg")
        for kind in kinds {
            let bytes = try kind.encoder.map { encoder in
                try jpeg.withUnsafeBytes { raw in try Data(VImage.load(raw, loader: .jpeg).encodedInTest(encoder)) }
            } ?? jpeg
            try bytes.write(to: folder.appendingPathComponent(kind.file))
        }
        return folder
    }

    /// The mean absolute difference of each band (RGB) of two images of
    /// one size.
    static func meanDifferences(_ a: RawPixels, _ b: RawPixels) -> [Double] {
        var sums = [Double](repeating: 0, count: 3)
        for y in 0..<a.height {
            for x in 0..<a.width {
                let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
                for band in 0..<3 { sums[band] += abs(Double(p[band]) - Double(q[band])) }
            }
        }
        return sums.map { $0 / Double(a.width * a.height) }
    }

    @Test func everySourceKindIsAnsweredWithThePhotoAtTheSizeAskedFor() async throws {
        let folder = try Self.sources()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await RoutedServer.withOrigin(serving: folder) { server, origin in
            var reference: RawPixels?
            for kind in Self.kinds {
                let source = origin.url("/\(kind.file)").absoluteString
                let answer = try await server.get("/img/_/rs:fit:512:512/q:80/plain/\(source)@jpg")
                #expect(answer.status == .ok, "\(kind.name): \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
                #expect(answer.header("Content-Type") == "image/jpeg", "\(kind.name)")
                let pixels = try RawPixels.decode([UInt8](answer.body), loader: .jpeg)
                #expect(max(pixels.width, pixels.height) == 512, "\(kind.name): \(pixels.width) x \(pixels.height)")
                if let reference {
                    #expect((pixels.width, pixels.height) == (reference.width, reference.height), "\(kind.name)")
                    if (pixels.width, pixels.height) == (reference.width, reference.height) {
                        // Each band alike: a swapped or shifted channel, a
                        // wrong range or a turned image is far beyond this.
                        let differences = Self.meanDifferences(pixels, reference)
                        #expect(differences.allSatisfy { $0 < 4 }, "\(kind.name) differs from the JPEG's answer by \(differences)")
                    }
                } else {
                    reference = pixels
                }

                // A browser's Accept picks AVIF, and the answer says it varies.
                let negotiated = try await server.get("/img/_/rs:fit:512:512/plain/\(source)",
                                                      headers: [("Accept", Self.chromiumAccept)])
                #expect(negotiated.status == .ok, "\(kind.name), negotiated")
                #expect(negotiated.header("Content-Type") == "image/avif", "\(kind.name)")
                #expect(negotiated.header("Vary") == "Accept", "\(kind.name)")
                let avif = try RawPixels.decode([UInt8](negotiated.body), loader: .heif)
                #expect((avif.width, avif.height) == (pixels.width, pixels.height), "\(kind.name), negotiated")
            }
        }
    }
}
