@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// imgproxy Pro's colour options, pixel by pixel: each changes what it
/// says by the amount its arguments say, and leaves alpha as it was.
@Suite(.offCooperativePool) struct ColourAdjustmentTests {
    /// The one pixel of a solid 4 x 4 image after `operation`.
    func pixel(_ value: [UInt8], _ operation: ImageOperation) throws -> [Int] {
        let data = try solidPNG(value, width: 4, height: 4)
        let result = try process(data, ProcessingOptions(operations: [operation], output: OutputOptions(format: .png)))
        return try pixels(of: result).pixel(x: 2, y: 2).map(Int.init)
    }

    func near(_ a: [Int], _ b: [Int], within tolerance: Int = 1) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { abs($0 - $1) <= tolerance }
    }

    @Test func brightnessAndContrast() throws {
        #expect(try pixel([100, 150, 200], .adjust(brightness: 20, contrast: 1, saturation: 1)) == [120, 170, 220])
        #expect(try pixel([100, 150, 250], .adjust(brightness: 20, contrast: 1, saturation: 1)) == [120, 170, 255], "clipped")
        #expect(try pixel([100, 150, 200], .adjust(brightness: -120, contrast: 1, saturation: 1)) == [0, 30, 80])
        // Around mid-grey: (v - 128) * 2 + 128.
        #expect(try pixel([100, 150, 200], .adjust(brightness: 0, contrast: 2, saturation: 1)) == [72, 172, 255])
        #expect(try pixel([100, 150, 200], .adjust(brightness: 0, contrast: 0, saturation: 1)) == [128, 128, 128])
        // Alpha is left as it was.
        #expect(try pixel([100, 150, 200, 90], .adjust(brightness: 20, contrast: 1, saturation: 1)) == [120, 170, 220, 90])
    }

    @Test func saturationScalesChromaOnly() throws {
        let grey = try pixel([200, 80, 40], .adjust(brightness: 0, contrast: 1, saturation: 0))
        #expect(abs(grey[0] - grey[1]) <= 1 && abs(grey[1] - grey[2]) <= 1, "no chroma: \(grey)")
        #expect(near(try pixel([200, 80, 40], .adjust(brightness: 0, contrast: 1, saturation: 1)), [200, 80, 40]), "1 leaves it")
        let more = try pixel([160, 120, 100], .adjust(brightness: 0, contrast: 1, saturation: 2))
        #expect(more[0] - more[2] > 60 - 2, "the spread between red and blue grows: \(more)")
        // A grey stays grey whatever the saturation.
        #expect(near(try pixel([90, 90, 90], .adjust(brightness: 0, contrast: 1, saturation: 3)), [90, 90, 90]))
    }

    @Test func duotoneAndMonochrome() throws {
        let shadows = RGBColour(red: 20, green: 0, blue: 80)!, highlights = RGBColour(red: 255, green: 220, blue: 0)!
        #expect(near(try pixel([0, 0, 0], .duotone(intensity: 1, shadows: shadows, highlights: highlights)), [20, 0, 80]))
        #expect(near(try pixel([255, 255, 255], .duotone(intensity: 1, shadows: shadows, highlights: highlights)), [255, 220, 0]))
        // Half the intensity: half way from the image to the tone.
        #expect(near(try pixel([255, 255, 255], .duotone(intensity: 0.5, shadows: shadows, highlights: highlights)), [255, 238, 128]))
        // Monochrome: black to the tint, alpha kept.
        let tint = RGBColour(red: 0xb3, green: 0xb3, blue: 0xb3)!
        #expect(near(try pixel([255, 255, 255, 77], .duotone(intensity: 1, shadows: RGBColour(red: 0, green: 0, blue: 0)!, highlights: tint)),
                     [179, 179, 179, 77]))
    }

    @Test func colorizeLaysAColourOver() throws {
        let red = RGBColour(red: 255, green: 0, blue: 0)!
        #expect(near(try pixel([0, 0, 0], .colorize(opacity: 0.5, colour: red, keepAlpha: false)), [128, 0, 0]))
        #expect(near(try pixel([0, 100, 200], .colorize(opacity: 1, colour: red, keepAlpha: false)), [255, 0, 0]))
        // Over transparency: covered in proportion, or kept as it was.
        #expect(near(try pixel([0, 0, 0, 0], .colorize(opacity: 0.5, colour: red, keepAlpha: false)), [128, 0, 0, 128]))
        #expect(near(try pixel([0, 0, 0, 0], .colorize(opacity: 0.5, colour: red, keepAlpha: true)), [128, 0, 0, 0]))
    }

    @Test func outOfRangeIsRefusedByName() {
        for operation: ImageOperation in [.adjust(brightness: 256, contrast: 1, saturation: 1), .adjust(brightness: 0, contrast: -1, saturation: 1),
                                          .adjust(brightness: 0, contrast: 1, saturation: .nan), .duotone(intensity: 2, shadows: .white, highlights: .white),
                                          .colorize(opacity: -0.1, colour: .white, keepAlpha: false)] {
            let error = #expect(throws: DarkroomError.self) { try pixel([1, 2, 3], operation) }
            #expect(error?.kind == .invalidOption, "\(operation)")
        }
    }

    @Test func aBackgroundThatIsItselfPartlyTransparent() throws {
        let red = RGBColour(red: 255, green: 0, blue: 0)!
        #expect(near(try pixel([0, 0, 0, 0], .backgroundWithAlpha(red, alpha: 0.5)), [255, 0, 0, 128]))
        #expect(try pixel([0, 0, 255, 255], .backgroundWithAlpha(red, alpha: 0.5)) == [0, 0, 255, 255], "opaque: as it was")
        // Half covered: a = 0.502, so alpha 0.751 and the colours mixed by it.
        #expect(near(try pixel([0, 0, 255, 128], .backgroundWithAlpha(red, alpha: 0.5)), [85, 0, 170, 192]))
        // 1: flattened, as background alone does.
        #expect(try pixel([0, 0, 0, 0], .backgroundWithAlpha(red, alpha: 1)) == [255, 0, 0])
    }

    @Test func blurAreasBlurInsideThemOnly() throws {
        // 40 x 20: black on the left, white on the right.
        let bytes = (0..<20).flatMap { _ in (0..<40).flatMap { x in x < 20 ? [UInt8](repeating: 0, count: 3) : [255, 255, 255] } }
        let data = Data(try RawPixels(width: 40, height: 20, bands: 3, bytes: bytes).pngData())
        let area = BlurArea(left: 0, top: 0, width: 1, height: 0.5)
        let result = try pixels(of: try process(data, ProcessingOptions(operations: [.blurAreas(sigma: 3, areas: [area])],
                                                                        output: OutputOptions(format: .png))))
        #expect((30...225).contains(Int(result.pixel(x: 19, y: 4)[0])), "the edge is soft inside: \(result.pixel(x: 19, y: 4))")
        #expect(result.pixel(x: 19, y: 15) == [0, 0, 0] && result.pixel(x: 20, y: 15) == [255, 255, 255], "and sharp outside")
        #expect(result.width == 40 && result.height == 20)
    }

    /// A 20 x 10 image: 100 on the left half, 200 on the right.
    func edge() throws -> Data {
        let bytes = (0..<10).flatMap { _ in (0..<20).flatMap { x in [UInt8](repeating: x < 10 ? 100 : 200, count: 3) } }
        return Data(try RawPixels(width: 20, height: 10, bands: 3, bytes: bytes).pngData())
    }

    @Test func unsharpMaskingAsImgproxysKernel() throws {
        // p + (weight / divider)(8p - the neighbours): at the edge, 100 - 300/24 and 200 + 300/24.
        let always = try pixels(of: try process(try edge(), ProcessingOptions(operations: [.unsharpMasking(onDownscale: false, weight: 1, divider: 24)],
                                                                              output: OutputOptions(format: .png))))
        #expect((87...88).contains(Int(always.pixel(x: 9, y: 5)[0])) && (212...213).contains(Int(always.pixel(x: 10, y: 5)[0])))
        #expect(always.pixel(x: 3, y: 5)[0] == 100 && always.pixel(x: 16, y: 5)[0] == 200, "flat areas as they were")
        // auto: only after a resize that made the image smaller.
        let unresized = try pixels(of: try process(try edge(), ProcessingOptions(operations: [.unsharpMasking(onDownscale: true, weight: 1, divider: 24)],
                                                                                 output: OutputOptions(format: .png))))
        #expect(unresized.pixel(x: 9, y: 5)[0] == 100)
        let enlarged = try pixels(of: try process(try edge(), ProcessingOptions(operations: [.resize(Resize(width: 40, height: nil, enlarge: true)),
                                                                                             .unsharpMasking(onDownscale: true, weight: 1, divider: 24)],
                                                                                output: OutputOptions(format: .png))))
        let plainEnlarged = try pixels(of: try process(try edge(), ProcessingOptions(operations: [.resize(Resize(width: 40, height: nil, enlarge: true))],
                                                                                     output: OutputOptions(format: .png))))
        #expect(enlarged == plainEnlarged, "enlarged: not sharpened")
    }

    @Test func gradientFromTransparentToTheColour() throws {
        let white = try solidPNG([255, 255, 255], width: 10, height: 10)
        func run(_ operation: ImageOperation) throws -> RawPixels {
            try pixels(of: try process(white, ProcessingOptions(operations: [operation], output: OutputOptions(format: .png))))
        }
        let black = RGBColour(red: 0, green: 0, blue: 0)!
        let down = try run(.gradient(opacity: 1, colour: black, angle: 0, start: 0, stop: 1))
        #expect(down.pixel(x: 5, y: 0) == [255, 255, 255] && down.pixel(x: 5, y: 9) == [0, 0, 0])
        #expect((100...155).contains(Int(down.pixel(x: 5, y: 5)[0])), "half way: \(down.pixel(x: 5, y: 5))")
        // 90 degrees: the right side transparent, the left opaque, as imgproxy's docs say.
        let left = try run(.gradient(opacity: 1, colour: black, angle: 90, start: 0, stop: 1))
        #expect(left.pixel(x: 0, y: 5) == [0, 0, 0] && left.pixel(x: 9, y: 5) == [255, 255, 255])
        // Starting half way: the first half untouched; half opacity: half the colour at the end.
        let late = try run(.gradient(opacity: 0.5, colour: black, angle: 0, start: 0.5, stop: 1))
        #expect(late.pixel(x: 5, y: 3) == [255, 255, 255] && near(late.pixel(x: 5, y: 9).map(Int.init), [128, 128, 128]))
    }
}
