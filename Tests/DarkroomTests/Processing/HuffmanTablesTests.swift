@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// JPEG answers carry Huffman tables made for their own coefficients, as
/// imgproxy and thumbor write them, by either engine: the fast path's
/// libjpeg and libvips' saver.
@Suite(.offCooperativePool) struct HuffmanTablesTests {
    /// The luminance DC table libjpeg writes when it is not asked to
    /// optimise: the example table of the JPEG standard (Annex K), as
    /// the counts of codes of each length, 1 to 16 bits.
    static let standardLuminanceDC: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]

    /// The code-length counts of the luminance DC table (class 0, id 0)
    /// in a JPEG's DHT segments.
    static func luminanceDCCounts(_ jpeg: [UInt8]) -> [UInt8]? {
        var at = 2
        while at + 4 <= jpeg.count, jpeg[at] == 0xFF {
            let marker = jpeg[at + 1]
            let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
            guard marker != 0xDA, length >= 2, at + 2 + length <= jpeg.count else { return nil }
            if marker == 0xC4 {
                var table = at + 4
                while table + 17 <= at + 2 + length {
                    let counts = Array(jpeg[table + 1 ..< table + 17])
                    if jpeg[table] == 0x00 { return counts }
                    table += 17 + counts.reduce(0) { $0 + Int($1) }
                }
            }
            at += 2 + length
        }
        return nil
    }

    @Test func jpegAnswersHaveTablesOfTheirOwn() throws {
        let photo = try Corpus.data("Aqua.jpg")
        let resize = ImageOperation.resize(Resize(width: 512, height: 512))
        let answers = [
            ("the fast path", try ImageProcessor.processBlocking(photo, options: ProcessingOptions(operations: [resize], output: OutputOptions(format: .jpeg)))),
            ("libvips", try ImageProcessor.processBlocking(try Fixtures.data("alpha.png"), options: ProcessingOptions(operations: [resize], output: OutputOptions(format: .jpeg)))),
            ("libvips, progressive", try ImageProcessor.processBlocking(photo, options: ProcessingOptions(operations: [resize, .sepia(intensity: 0.5)],
                                                                                                   output: OutputOptions(format: .jpeg, progressive: true)))),
        ]
        for (engine, answer) in answers {
            let counts = try #require(Self.luminanceDCCounts([UInt8](answer.data)), "\(engine): no luminance DC table")
            #expect(counts != Self.standardLuminanceDC, "\(engine): the standard's table, not one made for the image")
        }
    }
}
