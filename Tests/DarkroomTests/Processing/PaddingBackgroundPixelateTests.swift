@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// `padding`, `background` and `pixelate`: sizes, and the colours a person
/// would see.
@Suite(.offCooperativePool) struct PaddingBackgroundPixelateTests {
    /// 40 x 20, opaque: the left half red, the right half blue.
    static func halves() throws -> Data {
        let bytes = (0..<20).flatMap { _ in (0..<40).flatMap { x -> [UInt8] in x < 20 ? [220, 20, 20] : [20, 20, 220] } }
        return Data(try RawPixels(width: 40, height: 20, bands: 3, bytes: bytes).pngData())
    }

    /// 20 x 20 with alpha: the top half opaque green, the bottom half fully
    /// transparent.
    static func halfTransparent() throws -> Data {
        let bytes = (0..<20).flatMap { y in (0..<20).flatMap { _ -> [UInt8] in y < 10 ? [20, 200, 20, 255] : [0, 0, 0, 0] } }
        return Data(try RawPixels(width: 20, height: 20, bands: 4, bytes: bytes).pngData())
    }

    static func run(_ data: Data, _ operations: [ImageOperation], as format: ImageFormat = .png) throws -> (ProcessedImage, RawPixels) {
        let image = try process(data, ProcessingOptions(operations: operations, output: OutputOptions(format: format)))
        return (image, try pixels(of: image))
    }

    static func near(_ pixel: [UInt8], _ expected: [UInt8], within tolerance: Int = 12) -> Bool {
        zip(pixel, expected).allSatisfy { abs(Int($0) - Int($1)) <= tolerance }
    }

    static let orange = RGBColour(red: 255, green: 128, blue: 0)!

    @Test func paddingAddsItsSidesInTheBackgroundColour() throws {
        let (image, pixels) = try Self.run(try Self.halves(), [.padding(top: 5, right: 6, bottom: 7, left: 8, background: Self.orange)])
        #expect((image.width, image.height) == (40 + 6 + 8, 20 + 5 + 7))
        #expect(Self.near(pixels.pixel(x: 0, y: 0), [255, 128, 0]))
        #expect(Self.near(pixels.pixel(x: image.width - 1, y: image.height - 1), [255, 128, 0]))
        #expect(Self.near(pixels.pixel(x: 8, y: 5), [220, 20, 20]), "the photo starts after the left and top padding")
        #expect(Self.near(pixels.pixel(x: 8 + 39, y: 5 + 19), [20, 20, 220]))
    }

    @Test func paddingWithoutABackgroundIsWhiteOnOpaqueAndTransparentOnAlpha() throws {
        let (_, opaque) = try Self.run(try Self.halves(), [.padding(top: 4, right: 4, bottom: 4, left: 4, background: nil)], as: .jpeg)
        #expect(Self.near(opaque.pixel(x: 1, y: 1), [255, 255, 255]))
        let (withAlpha, clear) = try Self.run(try Self.halfTransparent(), [.padding(top: 4, right: 4, bottom: 4, left: 4, background: nil)])
        #expect(clear.bands == 4)
        #expect(clear.pixel(x: 1, y: 1)[3] == 0, "transparent padding")
        #expect(clear.pixel(x: 10, y: 8)[3] == 255, "the opaque half stays opaque")
        #expect((withAlpha.width, withAlpha.height) == (28, 28))
    }

    @Test func extendPlacesTheImageOnACanvasByGravity() throws {
        let orange = Self.orange
        let (top, north) = try Self.run(try Self.halves(), [.extend(width: 60, height: 40, aspectOnly: false, gravity: .north, background: orange)])
        #expect((top.width, top.height) == (60, 40))
        #expect(Self.near(north.pixel(x: 0, y: 0), [255, 128, 0]))
        #expect(Self.near(north.pixel(x: 10, y: 0), [220, 20, 20]), "centred across, at the top")
        #expect(Self.near(north.pixel(x: 49, y: 19), [20, 20, 220]))
        #expect(Self.near(north.pixel(x: 30, y: 30), [255, 128, 0]), "the canvas below")
        let (_, corner) = try Self.run(try Self.halves(), [.extend(width: 60, height: 40, aspectOnly: false, gravity: .southEast, background: orange)])
        #expect(Self.near(corner.pixel(x: 20, y: 20), [220, 20, 20]), "in the bottom right corner")
        #expect(Self.near(corner.pixel(x: 19, y: 39), [255, 128, 0]))
        // The aspect ratio only: the smallest square canvas that holds 40 x 20.
        let (square, squared) = try Self.run(try Self.halves(), [.extend(width: 1, height: 1, aspectOnly: true, gravity: .centre, background: orange)])
        #expect((square.width, square.height) == (40, 40))
        #expect(Self.near(squared.pixel(x: 0, y: 10), [220, 20, 20]) && Self.near(squared.pixel(x: 0, y: 9), [255, 128, 0]))
        // Never a crop: a canvas smaller than the image leaves it as it is.
        let (same, _) = try Self.run(try Self.halves(), [.extend(width: 10, height: 10, aspectOnly: false, gravity: .centre, background: nil)])
        #expect((same.width, same.height) == (40, 20))
        #expect(throws: DarkroomError.self) {
            try Self.run(try Self.halves(), [.extend(width: 100_000, height: 10, aspectOnly: false, gravity: .centre, background: nil)])
        }
    }

    @Test func backgroundFillsTransparencyAndDropsAlpha() throws {
        let (_, filled) = try Self.run(try Self.halfTransparent(), [.background(Self.orange)])
        #expect(filled.bands == 3)
        #expect(Self.near(filled.pixel(x: 10, y: 15), [255, 128, 0]), "the transparent half is orange")
        #expect(Self.near(filled.pixel(x: 10, y: 5), [20, 200, 20]), "the opaque half keeps its colour")
        // On an opaque image it changes nothing.
        let (_, opaque) = try Self.run(try Self.halves(), [.background(Self.orange)])
        #expect(Self.near(opaque.pixel(x: 5, y: 5), [220, 20, 20]))
    }

    @Test func transparencyWrittenAsJPEGIsWhite() throws {
        let (image, pixels) = try Self.run(try Self.halfTransparent(), [], as: .jpeg)
        #expect(image.format == .jpeg)
        #expect(Self.near(pixels.pixel(x: 10, y: 15), [255, 255, 255]), "not black")
    }

    @Test func pixelateMakesUniformBlocksAtTheSameSize() throws {
        // A gradient, so that every block has an average of its own.
        let bytes = (0..<32).flatMap { y in (0..<32).flatMap { x -> [UInt8] in [UInt8(x * 8), UInt8(y * 8), 100] } }
        let gradient = Data(try RawPixels(width: 32, height: 32, bands: 3, bytes: bytes).pngData())
        let (image, pixels) = try Self.run(gradient, [.pixelate(size: 8)])
        #expect((image.width, image.height) == (32, 32))
        for (bx, by) in [(0, 0), (8, 16), (24, 24)] {
            let first = pixels.pixel(x: bx, y: by)
            #expect((0..<8).allSatisfy { d in pixels.pixel(x: bx + d, y: by + 7 - d) == first }, "block at \(bx),\(by) is one colour")
        }
        #expect(pixels.pixel(x: 0, y: 0) != pixels.pixel(x: 24, y: 24), "blocks differ")
        // A block larger than the image averages all of it.
        let (whole, wholePixels) = try Self.run(gradient, [.pixelate(size: 500)])
        #expect((whole.width, whole.height) == (32, 32))
        #expect(wholePixels.pixel(x: 0, y: 0) == wholePixels.pixel(x: 31, y: 31))
    }

    @Test func outOfRangeValuesAreRefused() {
        #expect(throws: DarkroomError.self) { try Self.run(try Self.halves(), [.pixelate(size: 0)]) }
        #expect(throws: DarkroomError.self) { try Self.run(try Self.halves(), [.padding(top: -1, right: 0, bottom: 0, left: 0, background: nil)]) }
        #expect(throws: DarkroomError.self) { try Self.run(try Self.halves(), [.padding(top: 9000, right: 0, bottom: 0, left: 0, background: nil)]) }
        #expect(RGBColour(hex: "ggg") == nil && RGBColour(hex: "12345") == nil && RGBColour(red: 256, green: 0, blue: 0) == nil)
        #expect(RGBColour(hex: "F80") == Self.orange.withGreen(136))
    }
}

private extension RGBColour {
    func withGreen(_ green: Int) -> RGBColour { RGBColour(red: red, green: green, blue: blue)! }
}

@Suite(.offCooperativePool) struct TrimTests {
    static let white = RGBColour(red: 255, green: 255, blue: 255)!
    static let black = RGBColour(red: 0, green: 0, blue: 0)!

    /// The 240 x 160 fixture on a border, then trimmed.
    func trimmed(border: (top: Int, right: Int, bottom: Int, left: Int), colour: RGBColour,
                 _ trim: ImageOperation) throws -> ProcessedImage {
        try process(fixture: "landscape.jpg", [.padding(top: border.top, right: border.right, bottom: border.bottom, left: border.left, background: colour), trim])
    }

    @Test func aBorderOfTheCornersColourIsCutAway() throws {
        let result = try trimmed(border: (20, 30, 40, 50), colour: Self.white, .trim(threshold: 10, colour: nil, equalHorizontal: false, equalVertical: false))
        #expect(abs(result.width - 240) <= 2 && abs(result.height - 160) <= 2, "\(result.width) x \(result.height)")
        // What is left starts with the red block.
        #expect(isRed(try pixels(of: result).pixel(x: 4, y: 4)))
    }

    @Test func aNamedColourAndEqualSides() throws {
        let black = try trimmed(border: (10, 10, 10, 10), colour: Self.black, .trim(threshold: 10, colour: Self.black, equalHorizontal: false, equalVertical: false))
        #expect(abs(black.width - 240) <= 2 && abs(black.height - 160) <= 2, "\(black.width) x \(black.height)")
        // A white border is not black: nothing is cut.
        let kept = try trimmed(border: (10, 10, 10, 10), colour: Self.white, .trim(threshold: 10, colour: Self.black, equalHorizontal: false, equalVertical: false))
        #expect((kept.width, kept.height) == (260, 180))
        // 50 left and 10 right: equal sides cut 10 from each.
        let equal = try trimmed(border: (0, 10, 0, 50), colour: Self.white, .trim(threshold: 10, colour: nil, equalHorizontal: true, equalVertical: false))
        #expect(abs(equal.width - 280) <= 2 && equal.height == 160, "\(equal.width) x \(equal.height)")
    }

    @Test func allBorderStaysAndBadThresholdsAreRefused() throws {
        let all = try trimmed(border: (10, 10, 10, 10), colour: Self.white, .trim(threshold: 255, colour: nil, equalHorizontal: false, equalVertical: false))
        #expect((all.width, all.height) == (260, 180))
        for bad in [Double.nan, -1, 256, 1e300] {
            #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.trim(threshold: bad, colour: nil, equalHorizontal: false, equalVertical: false)]) }
        }
    }
}
