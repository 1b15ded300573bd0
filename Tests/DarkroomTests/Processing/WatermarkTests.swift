@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Over the 240 x 160 fixture (a red block at the top-left, blue-grey
/// elsewhere), a 20 x 20 red square as the watermark.
@Suite(.offCooperativePool) struct WatermarkTests {
    static func redSquare() throws -> WatermarkImage {
        let square = try process(fixture: "landscape.jpg", [.crop(CropRect(x: 0, y: 0, width: 20, height: 20))], output: OutputOptions(format: .png))
        return WatermarkImage(data: Data(buffer: square.bytes))
    }

    func marked(_ watermark: Watermark, fixture: String = "landscape.jpg") throws -> RawPixels {
        try pixels(of: process(fixture: fixture, [.watermark(watermark)], output: OutputOptions(format: .png)))
    }

    @Test func placedByGravityWithOffsets() throws {
        let mark = try Self.redSquare()
        let corner = try marked(Watermark(image: mark, opacity: 1, gravity: .southEast))
        #expect((corner.width, corner.height) == (240, 160))
        #expect(isRed(corner.pixel(x: 235, y: 155)) && !isRed(corner.pixel(x: 215, y: 135)))
        // 30 px in from the right edge, 10 up from the bottom.
        let moved = try marked(Watermark(image: mark, opacity: 1, gravity: Gravity(.southEast, x: 30, y: 10)))
        #expect(isRed(moved.pixel(x: 200, y: 140)) && !isRed(moved.pixel(x: 235, y: 155)))
    }

    @Test func opacityBlends() throws {
        let half = try marked(Watermark(image: Self.redSquare(), opacity: 0.5, gravity: .southEast)).pixel(x: 235, y: 155)
        let base = try pixels(of: process(fixture: "landscape.jpg")).pixel(x: 235, y: 155)
        let red = try RawPixels.decode([UInt8](Self.redSquare().data), loader: .png).pixel(x: 10, y: 10)
        // Halfway between the square's red and the image under it.
        for band in 0..<3 {
            #expect(abs(Int(half[band]) - (Int(base[band]) + Int(red[band])) / 2) <= 6, "band \(band): \(half), under it \(base)")
        }
    }

    @Test func scaledIntoAShareOfTheImage() throws {
        // As imgproxy: fit into half of 240 x 160, so an 80 x 80 square,
        // centred at (80, 40) (half of 161 and 81, rounded to even).
        let scaled = try marked(Watermark(image: Self.redSquare(), opacity: 1, gravity: .centre, scale: 0.5))
        #expect(isRed(scaled.pixel(x: 82, y: 42)) && isRed(scaled.pixel(x: 157, y: 117)))
        #expect(!isRed(scaled.pixel(x: 77, y: 100)) && !isRed(scaled.pixel(x: 162, y: 100)) && !isRed(scaled.pixel(x: 100, y: 122)))
        // Past 1 it may be larger than the image, and hangs over every edge.
        let over = try marked(Watermark(image: Self.redSquare(), opacity: 1, gravity: .centre, scale: 2))
        #expect([(1, 1), (238, 1), (1, 158), (238, 158)].allSatisfy { isRed(over.pixel(x: $0.0, y: $0.1)) })
    }

    @Test func replicatedWithGaps() throws {
        // Tiles every 40 px from the top-left: red at 120...139, a gap at 100...119.
        let tiled = try marked(Watermark(image: Self.redSquare(), opacity: 1, gravity: Gravity(.centre, x: 20, y: 20), replicate: true))
        #expect(isRed(tiled.pixel(x: 125, y: 85)) && isRed(tiled.pixel(x: 205, y: 125)))
        #expect(!isRed(tiled.pixel(x: 105, y: 105)) && !isRed(tiled.pixel(x: 125, y: 105)))
    }

    @Test func textIsDrawnWhiteWithAShadowWhereTheGravitySays() throws {
        let plain = try pixels(of: process(fixture: "landscape.jpg"))
        let marked = try marked(Watermark(text: "Darkroom", opacity: 1, gravity: .southEast))
        #expect((marked.width, marked.height) == (240, 160))
        // Some pixels of the bottom-right band turn near white (the letters)
        // and some darker (the shadow); the top-left stays as it was.
        var white = 0, darker = 0
        for y in 120..<160 {
            for x in 100..<240 {
                let (after, before) = (marked.pixel(x: x, y: y), plain.pixel(x: x, y: y))
                if after.prefix(3).allSatisfy({ $0 > 235 }) { white += 1 }
                if Int(after[0]) + Int(after[1]) + Int(after[2]) + 60 < Int(before[0]) + Int(before[1]) + Int(before[2]) { darker += 1 }
            }
        }
        #expect(white > 100 && darker > 100, "white \(white), darker \(darker)")
        #expect(marked.pixel(x: 5, y: 5) == plain.pixel(x: 5, y: 5))
        // Scaled to the whole width, the text reaches across.
        let wide = try self.marked(Watermark(text: "Darkroom", opacity: 1, gravity: .centre, scale: 1))
        #expect(wide.pixel(x: 3, y: 80) != plain.pixel(x: 3, y: 80) || wide.pixel(x: 236, y: 80) != plain.pixel(x: 236, y: 80))
        // Markup is text: the same pixels as text that looks like it.
        let markup = try self.marked(Watermark(text: "<b>x</b>", opacity: 1))
        #expect(markup != plain)
        for bad in ["", String(repeating: "x", count: Watermark.maxTextLength + 1), "a\u{7}b"] {
            #expect(throws: DarkroomError.self, "\(bad.debugDescription)") { try process(fixture: "landscape.jpg", [.watermark(Watermark(text: bad, opacity: 1))]) }
        }
    }

    @Test func alphaStaysAndBadNumbersAreRefused() throws {
        let withAlpha = try marked(Watermark(image: Self.redSquare(), opacity: 1), fixture: "alpha.png")
        #expect(withAlpha.bands == 4)
        let mark = try Self.redSquare()
        for bad in [Watermark(image: mark, opacity: .nan), Watermark(image: mark, opacity: 2), Watermark(image: mark, opacity: 1, scale: -1),
                    Watermark(image: mark, opacity: 1, gravity: .smart), Watermark(image: WatermarkImage(data: Data("<html>".utf8)), opacity: 1)] {
            #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.watermark(bad)]) }
        }
    }
}
