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

    /// Pixels of the bottom-right band that `test` picks out, against the plain image.
    private func count(in marked: RawPixels, _ test: ([UInt8], [UInt8]) -> Bool) throws -> Int {
        let plain = try pixels(of: process(fixture: "landscape.jpg"))
        var found = 0
        for y in 120..<160 {
            for x in 100..<240 where test(marked.pixel(x: x, y: y), plain.pixel(x: x, y: y)) { found += 1 }
        }
        return found
    }

    private static func brightness(_ pixel: [UInt8]) -> Int { Int(pixel[0]) + Int(pixel[1]) + Int(pixel[2]) }

    @Test func textIsPangoMarkupBlackByDefaultWhereTheGravitySays() throws {
        let plain = try pixels(of: process(fixture: "landscape.jpg"))
        let marked = try marked(Watermark(text: "Darkroom", opacity: 1, gravity: .southEast))
        #expect((marked.width, marked.height) == (240, 160))
        // As imgproxy Pro: black sans 16, no shadow; the top-left stays as it was.
        let black = try count(in: marked) { after, _ in Self.brightness(after) < 60 }
        let white = try count(in: marked) { after, _ in after.prefix(3).allSatisfy { $0 > 235 } }
        #expect(black > 40 && white == 0, "black \(black), white \(white)")
        #expect(marked.pixel(x: 5, y: 5) == plain.pixel(x: 5, y: 5))
        // Markup sets the colour and the size.
        let styled = try self.marked(Watermark(text: "<span foreground=\"white\" size=\"x-large\"><b>Darkroom</b></span>", opacity: 1, gravity: .southEast))
        let whiteLetters = try count(in: styled) { after, _ in after.prefix(3).allSatisfy { $0 > 235 } }
        #expect(whiteLetters > black, "larger white letters: \(whiteLetters) against \(black) black")
        // Scaled to the whole width, the text reaches across.
        let wide = try self.marked(Watermark(text: "Darkroom", opacity: 1, gravity: .centre, scale: 1))
        #expect((0..<12).contains { wide.pixel(x: $0, y: 80) != plain.pixel(x: $0, y: 80) })
        #expect((228..<240).contains { wide.pixel(x: $0, y: 80) != plain.pixel(x: $0, y: 80) })
    }

    @Test func markupThatCannotBeDrawnIsRefusedWithItsReason() throws {
        for (bad, reason) in [
            ("", "1 to"), (String(repeating: "x", count: Watermark.maxTextLength + 1), "1 to"), ("a\u{7}b", "control"),
            ("<b>open", "markup is not valid"), ("<blink>x</blink>", "markup is not valid"),
            ("<span font_family=\"No Such Face\">x</span>", "'No Such Face' is not installed"),
            ("<span font=\"No Such Face 12\">x</span>", "not installed"),
            // Sizes are checked before any font is made at them.
            ("<span size=\"100000000\">x</span>", "font size of 97656 pixels"),
            (String(repeating: "<big>", count: 60) + "x" + String(repeating: "</big>", count: 60), "font size"),
            ("<span font=\"Sans 5000\">x</span>", "font size"),
            ("<span letter_spacing=\"1000000000\">xxxxxxxx</span>", "letter spacing"),
            ("<span rise=\"-100000000\">x</span>", "rise"),
            ("<span line_height=\"10000000\">x</span>", "line height"),
            ("<span font=\"Sans 0.0001\">x</span>", "draws nothing"),
            // Within the font limit, yet too large drawn whole.
            (String(repeating: "<span font=\"Sans 900px\">W</span>", count: 30), "would be"),
        ] {
            do {
                _ = try process(fixture: "landscape.jpg", [.watermark(Watermark(text: bad, opacity: 1))])
                Issue.record("\(bad.prefix(40).debugDescription) was drawn")
            } catch let error as DarkroomError {
                #expect(error.kind == .invalidOption && error.reason.contains(reason), "\(bad.prefix(40).debugDescription): \(error.reason)")
            }
        }
        // None of that leaves the fonts unable to draw the next request's text.
        let after = try marked(Watermark(text: "Darkroom", opacity: 1, gravity: .southEast))
        #expect(try count(in: after) { pixel, _ in Self.brightness(pixel) < 60 } > 40)
        // Generic and installed families are drawn.
        _ = try process(fixture: "landscape.jpg", [.watermark(Watermark(text: "<span font_family=\"monospace\">x</span>", opacity: 1))])
        let installed = try #require(FontFamilies.names.first)
        _ = try process(fixture: "landscape.jpg", [.watermark(Watermark(text: "<span font_family=\"\(installed)\">x</span>", opacity: 1))])
    }

    /// A 40 x 10 bar, green at its left 10 pixels, red elsewhere.
    static func bar() throws -> WatermarkImage {
        var bar = RawPixels(width: 40, height: 10, filledWith: [255, 0, 0])
        for y in 0..<10 { for x in 0..<10 { bar.bytes.replaceSubrange((y * 40 + x) * 3..<(y * 40 + x) * 3 + 3, with: [0, 255, 0]) } }
        return WatermarkImage(data: Data(try bar.pngData()))
    }

    private static func isGreen(_ pixel: [UInt8]) -> Bool { pixel[1] > 200 && pixel[0] < 60 && pixel[2] < 60 }

    @Test func sizedTurnedAndShadowedAsPro() throws {
        // wms: fitted into 60 x 60 (enlarged), centred at (120, 80): 90...149, 50...109.
        var sized = Watermark(image: try Self.redSquare(), opacity: 1)
        sized.fitWidth = 60
        let big = try marked(sized)
        #expect(isRed(big.pixel(x: 92, y: 52)) && isRed(big.pixel(x: 147, y: 107)) && !isRed(big.pixel(x: 86, y: 80)))
        // A scale wins over the box.
        sized.scale = 0.25
        let scaled = try marked(sized)
        #expect(!isRed(scaled.pixel(x: 92, y: 52)) && isRed(scaled.pixel(x: 120, y: 80)))

        // wmr: a quarter turn clockwise takes the bar's left end to the top.
        var turned = Watermark(image: try Self.bar(), opacity: 1)
        turned.rotation = 90
        let quarter = try marked(turned)
        #expect(Self.isGreen(quarter.pixel(x: 120, y: 63)) && isRed(quarter.pixel(x: 120, y: 95)), "\(quarter.pixel(x: 120, y: 63))")
        turned.rotation = -90
        let back = try marked(turned)
        #expect(Self.isGreen(back.pixel(x: 120, y: 96)) && isRed(back.pixel(x: 120, y: 65)))
        // 45 degrees: the corners of its box are clear, so the image shows there.
        turned.rotation = 45
        let plain = try pixels(of: process(fixture: "landscape.jpg"))
        let slanted = try marked(turned)
        #expect(isRed(slanted.pixel(x: 125, y: 85)) && slanted.pixel(x: 105, y: 96) == plain.pixel(x: 105, y: 96))

        // wmsh: a soft shadow darkens around the square, not far off.
        var shadowed = Watermark(image: try Self.redSquare(), opacity: 1)
        shadowed.shadowSigma = 4
        let soft = try marked(shadowed)
        #expect(isRed(soft.pixel(x: 120, y: 80)))
        #expect(Self.brightness(soft.pixel(x: 133, y: 80)) + 30 < Self.brightness(plain.pixel(x: 133, y: 80)), "beside the square")
        #expect(abs(Self.brightness(soft.pixel(x: 160, y: 80)) - Self.brightness(plain.pixel(x: 160, y: 80))) < 6, "far from it")
        for bad in [{ (w: inout Watermark) in w.rotation = 400 }, { $0.shadowSigma = -1 }, { $0.shadowSigma = .nan }, { $0.fitWidth = 100_000 }] {
            var watermark = Watermark(image: try Self.redSquare(), opacity: 1)
            bad(&watermark)
            #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.watermark(watermark)]) }
        }
        // A shadow is a Gaussian as any other: a large one on a large mark
        // is refused by the cost rule before any of its pixels is made.
        var huge = Watermark(image: try Self.redSquare(), opacity: 1)
        (huge.fitWidth, huge.fitHeight, huge.shadowSigma) = (4096, 4096, 100)
        do {
            _ = try process(fixture: "landscape.jpg", [.watermark(huge)])
            Issue.record("a 4096-pixel shadow of sigma 100 was made")
        } catch let error as DarkroomError {
            #expect(error.kind == .invalidOption && error.reason.contains("watermark shadow sigma"), "\(error)")
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
