@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// imgproxy Pro's `best` format: the smallest of the candidates, lossless
/// for simple images.
@Suite(.offCooperativePool) struct BestFormatTests {
    private func best(_ data: Data, accepted: Set<ImageFormat>?, configure: (inout OutputOptions) -> Void = { _ in }) throws -> ProcessedImage {
        var output = OutputOptions(quality: 80)
        output.acceptedFormats = accepted
        output.best = true
        configure(&output)
        return try process(data, ProcessingOptions(operations: [.resize(Resize(width: 320, height: 320))], output: output))
    }

    private func size(_ data: Data, as format: ImageFormat) throws -> Int {
        try process(data, ProcessingOptions(operations: [.resize(Resize(width: 320, height: 320))], output: OutputOptions(format: format, quality: 80))).data.count
    }

    /// Three flat stripes: a drawing, not a photo.
    private func stripes(alpha: Bool = false) throws -> Data {
        var pixels = RawPixels(width: 300, height: 300, filledWith: alpha ? [200, 30, 30, 255] : [200, 30, 30])
        let bands = alpha ? 4 : 3
        for y in 100..<300 {
            for x in 0..<300 {
                let colour: [UInt8] = y < 200 ? [30, 200, 30] : [30, 30, 200]
                pixels.bytes.replaceSubrange((y * 300 + x) * bands..<(y * 300 + x) * bands + 3, with: colour)
                if alpha, y >= 250 { pixels.bytes[(y * 300 + x) * bands + 3] = 0 }
            }
        }
        return Data(try pixels.pngData())
    }

    @Test func aPhotoIsTheSmallestOfTheLossyFormatsTheClientTakes() throws {
        let photo = try Corpus.data("Blinds.jpg")
        let answer = try best(photo, accepted: [.jpeg, .png, .webp, .avif])
        let sizes: [ImageFormat: Int] = [.jpeg: try size(photo, as: .jpeg), .webp: try size(photo, as: .webp), .avif: try size(photo, as: .avif)]
        let smallest = try #require(sizes.min { $0.value < $1.value })
        #expect(answer.format == smallest.key && answer.data.count == smallest.value, "\(answer.format) \(answer.data.count) of \(sizes)")
        // AVIF and WebP only when the client names them.
        #expect(try best(photo, accepted: [.jpeg, .png]).format == .jpeg)
        #expect(try best(photo, accepted: nil).format == .jpeg)
        // Past the resolution limit, the one expected to win without trying.
        let quick = try best(photo, accepted: [.jpeg, .webp, .avif]) { $0.bestMaxPixels = 1000 }
        #expect(quick.format == .avif)
    }

    @Test func aDrawingIsWrittenLossless() throws {
        let drawing = try stripes()
        let original = try RawPixels.decode([UInt8](try process(drawing, ProcessingOptions(operations: [.resize(Resize(width: 320, height: 320))],
                                                                                     output: OutputOptions(format: .png))).data), loader: .png)
        for accepted: Set<ImageFormat>? in [[.jpeg, .png, .webp, .avif], nil] {
            let answer = try best(drawing, accepted: accepted)
            #expect([.png, .webp].contains(answer.format), "\(answer.format)")
            let decoded = try RawPixels.decode([UInt8](answer.data), loader: answer.format.loader)
            #expect(decoded.bytes == original.bytes, "lossless: every pixel as it was, in \(answer.format)")
        }
        // Told every image is simple or none is, it follows.
        #expect(try best(try Corpus.data("Blinds.jpg"), accepted: [.jpeg, .png]) { $0.bestComplexityThreshold = 255 }.format == .png)
        #expect(try best(drawing, accepted: [.jpeg, .png]) { $0.bestComplexityThreshold = 0 }.format == .jpeg)
        // Alpha never goes to JPEG.
        let clear = try best(try stripes(alpha: true), accepted: [.jpeg, .png]) { $0.bestComplexityThreshold = 0 }
        #expect(clear.format == .png)
    }

    @Test func complexitySeparatesDrawingsFromPhotos() throws {
        try VipsRuntime.start()
        let run = { (data: Data, format: ImageFormat) throws -> Double in
            try data.withUnsafeBytes { raw in
                let image = try VImage.load(raw, loader: format.loader, randomAccess: true)
                return try ProcessingRun(data: data, options: ProcessingOptions(), killSwitch: KillSwitch()).complexity(of: image)
            }
        }
        let drawing = try run(try stripes(), .png)
        #expect(drawing < 3, "drawing \(drawing)")
        for photo in Corpus.photos {
            let measure = try run(try Data(contentsOf: photo), .jpeg)
            #expect(measure > 5.5, "\(photo.lastPathComponent): \(measure)")
        }
    }
}
