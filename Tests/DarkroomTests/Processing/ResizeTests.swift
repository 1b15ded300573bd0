@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct ResizeTests {
    @Test(arguments: [
        // Aqua is 2560 x 1600.
        (Resize(width: 600, height: 600, mode: .fit), 600, 375),
        (Resize(width: 600, height: 600, mode: .fill), 600, 600),
        (Resize(width: 300, height: nil), 300, 188),
        (Resize(width: nil, height: 400), 640, 400),
        (Resize(width: 500, height: 200, mode: .force), 500, 200),
        (Resize(width: 1000, height: 300, mode: .fill), 1000, 300),
        // imgproxy's min-width, min-height and zoom, with its arithmetic.
        // A minimum scales the whole image up to it (h:100 alone gives
        // 160 x 100; at least 300 wide, 300 x 188), then the asked side
        // cuts it, as imgproxy documents.
        (Resize(width: nil, height: 100, minWidth: 300), 300, 100),
        (Resize(width: 100, height: nil, minHeight: 300), 100, 300),
        (Resize(width: nil, height: 100, minWidth: 3000), 3000, 100),        // a minimum enlarges, el or not
        (Resize(width: 100, height: 100, minWidth: 300), 100, 100),
        (Resize(width: 100, height: nil, minWidth: 300), 100, 188),
        (Resize(width: 100, height: 100, zoomX: 2, zoomY: 2), 200, 125),
        (Resize(width: 100, height: 100, mode: .fill, zoomX: 2, zoomY: 2), 200, 200),   // the box is zoomed too
        (Resize(width: nil, height: nil, zoomX: 0.5, zoomY: 0.25), 1280, 400),
        (Resize(width: 2000, height: 2000, zoomX: 2, zoomY: 2), 2560, 1600),  // zoom does not enlarge without el
    ])
    func sizes(resize: Resize, width: Int, height: Int) throws {
        let source = try Corpus.data("Aqua.jpg")
        let result = try process(source, ProcessingOptions(operations: [.resize(resize)], output: OutputOptions(format: .jpeg)))
        #expect(result.width == width)
        #expect(result.height == height)
        #expect(result.source == .init(format: .jpeg, width: 2560, height: 1600, bytes: source.count))
        let decoded = try pixels(of: result)
        #expect(decoded.width == width && decoded.height == height)
    }

    @Test(arguments: [
        // imgproxy's force with one side 0 keeps that side as it is; not
        // enlarged, a forced aspect ratio stays.
        (Resize(width: 120, height: nil, mode: .force), 120, 160),
        (Resize(width: nil, height: 40, mode: .force), 240, 40),
        (Resize(width: 480, height: 80, mode: .force), 240, 40),
        (Resize(width: 480, height: 80, mode: .force, enlarge: true), 480, 80),
        // fill-down: not enlarged, but cut to the asked aspect ratio; with
        // enlarge, a fill.
        (Resize(width: 480, height: 480, mode: .fillDown), 160, 160),
        (Resize(width: 480, height: 240, mode: .fillDown), 240, 120),
        (Resize(width: 480, height: 480, mode: .fillDown, enlarge: true), 480, 480),
        (Resize(width: 120, height: 120, mode: .fillDown), 120, 120),
        (Resize(width: 480, height: 480, mode: .fill), 240, 160),
    ])
    func forceWithOneSideAndFillDown(resize: Resize, width: Int, height: Int) throws {
        let result = try process(fixture: "landscape.jpg", [.resize(resize)])
        #expect((result.width, result.height) == (width, height))
    }

    @Test func neverEnlargesUnlessAsked() throws {
        let small = try process(fixture: "landscape.jpg", [.resize(Resize(width: 1000, height: 1000))])
        #expect((small.width, small.height) == (240, 160))
        let filled = try process(fixture: "landscape.jpg", [.resize(Resize(width: 1000, height: 100, mode: .fill))])
        #expect((filled.width, filled.height) == (240, 100))
        let enlarged = try process(fixture: "landscape.jpg", [.resize(Resize(width: 960, height: 960, enlarge: true))])
        #expect((enlarged.width, enlarged.height) == (960, 640))
    }

    @Test(arguments: [
        (Gravity.west, 160, 160, true), (.east, 160, 160, false),
        (.north, 240, 80, true), (.south, 240, 80, false),
        (.centre, 160, 160, false),
    ])
    func fillCropsByGravity(gravity: Gravity, width: Int, height: Int, keepsTopLeft: Bool) throws {
        // The red block marks the top-left corner of the 240 x 160 fixture.
        let result = try process(fixture: "landscape.jpg", [.resize(Resize(width: width, height: height, mode: .fill, gravity: gravity))])
        #expect((result.width, result.height) == (width, height))
        #expect(isRed(try pixels(of: result).pixel(x: 2, y: 2)) == keepsTopLeft)
    }

    @Test func smartCropKeepsTheAskedSize() throws {
        let result = try process(try Corpus.data("LadyBird.jpg"), ProcessingOptions(
            operations: [.resize(Resize(width: 300, height: 300, mode: .fill, gravity: .smart))],
            output: OutputOptions(format: .jpeg)))
        #expect((result.width, result.height) == (300, 300))
    }

    @Test func smartCropKeepsTheSalientPart() throws {
        // The fixture's red block (top-left, 40 x 40) is the one salient
        // thing on a flat blue-grey: a 100-wide smart crop keeps it, where
        // a centred one (70...169) cuts it away.
        let smart = try pixels(of: process(fixture: "landscape.jpg", [.resize(Resize(width: 100, height: 160, mode: .fill, gravity: .smart))]))
        let centred = try pixels(of: process(fixture: "landscape.jpg", [.resize(Resize(width: 100, height: 160, mode: .fill))]))
        func redPixels(_ image: RawPixels) -> Int {
            (0..<image.height).reduce(0) { sum, y in sum + (0..<image.width).filter { isRed(image.pixel(x: $0, y: y)) }.count }
        }
        #expect(redPixels(smart) > 1000, "the block is kept")
        #expect(redPixels(centred) == 0)
    }

    @Test func cropCutsARectangleAndClampsToTheImage() throws {
        let result = try process(fixture: "landscape.jpg", [.crop(CropRect(x: 0, y: 0, width: 40, height: 40))])
        #expect((result.width, result.height) == (40, 40))
        #expect(isRed(try pixels(of: result).pixel(x: 20, y: 20)))
        let clamped = try process(fixture: "landscape.jpg", [.crop(CropRect(x: 200, y: 100, width: 100, height: 100))])
        #expect((clamped.width, clamped.height) == (40, 60))
        #expect(throws: DarkroomError.self) {
            try process(fixture: "landscape.jpg", [.crop(CropRect(x: 300, y: 0, width: 10, height: 10))])
        }
    }

    @Test func shrinkOnLoadDoesNotChangeTheResult() throws {
        // With shrink-on-load (resize first) and without (blur first, which
        // disables it), the sizes agree and the pictures are close.
        let data = try Corpus.data("Dune.jpg")
        let resize = ImageOperation.resize(Resize(width: 300, height: 300))
        let fast = try process(data, ProcessingOptions(operations: [resize], output: OutputOptions(format: .png)))
        let slow = try process(data, ProcessingOptions(operations: [.crop(CropRect(x: 0, y: 0, width: 1920, height: 1200)), resize], output: OutputOptions(format: .png)))
        #expect((fast.width, fast.height) == (slow.width, slow.height))
        let a = try pixels(of: fast), b = try pixels(of: slow)
        let difference = zip(a.bytes, b.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
        // libjpeg's scaled decode differs from a full decode by a few levels.
        #expect(Double(difference) / Double(a.bytes.count) < 5, "mean difference per sample")
    }
}

@Suite(.offCooperativePool) struct ShrinkOnLoadTests {
    @Test(arguments: [
        (2560, 1600, 600, 4), (2560, 1600, 320, 8), (2560, 1600, 100, 8),
        (1280, 1024, 600, 2), (1280, 1024, 1000, 1), (640, 480, 600, 1),
    ])
    func factorKeepsTheImageAtLeastAsLargeAsTheTarget(width: Int, height: Int, box: Int, factor: Int) {
        let plan = ShrinkOnLoad.plan(operations: [.resize(Resize(width: box, height: box))], format: .jpeg, width: width, height: height)
        #expect(plan.factor == factor)
        // The shrunk image still covers the fitted size.
        let fitted = Resize(width: box, height: box).outputSize(fromWidth: width, height: height)
        #expect((width + factor - 1) / factor >= fitted.width)
    }

    @Test func onlyWhenTheFirstStepIsAResize() {
        let ops: [ImageOperation] = [.sepia(intensity: 0.8), .resize(Resize(width: 100, height: 100))]
        #expect(ShrinkOnLoad.plan(operations: ops, format: .jpeg, width: 2560, height: 1600).factor == 1)
        #expect(ShrinkOnLoad.plan(operations: [.resize(Resize(width: 100, height: 100))], format: .png, width: 2560, height: 1600).factor == 1)
    }
}
