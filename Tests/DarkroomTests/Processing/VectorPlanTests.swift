@testable import Darkroom
import Foundation
import Testing

/// The scale a vector is drawn at follows the steps before its first
/// resize, as imgproxy scales vectors at load; the steps' pixels follow
/// the drawing.
@Suite struct VectorPlanTests {
    @Test func theSizeBeforeTheResizeFollowsTurnsAndCropsInOrder() throws {
        let fit = ImageOperation.resize(Resize(width: 300, height: 300))
        let turnThenCut = try #require(VectorPlan([.rotate(degrees: 90), .cropPlaced(width: 100, height: 50, gravity: .centre), fit]))
        #expect(turnThenCut.sizeBeforeResize(width: 400, height: 300) == (100, 50))
        let cutThenTurn = try #require(VectorPlan([.cropPlaced(width: 100, height: 50, gravity: .centre), .rotate(degrees: 270), fit]))
        #expect(cutThenTurn.sizeBeforeResize(width: 400, height: 300) == (50, 100))
        // Half turns and flips keep the size; fractions of a side scale with it.
        let half = try #require(VectorPlan([.rotate(degrees: 180), .flip(horizontal: true, vertical: false),
                                            .cropPlaced(width: 0.5, height: 0, gravity: .north), fit]))
        #expect(half.sizeBeforeResize(width: 400, height: 300) == (200, 300))
    }

    @Test func aSmallDrawingIsDrawnToMeetTheBoxAfterItsSteps() throws {
        let plan = try #require(VectorPlan([.rotate(degrees: 90), .resize(Resize(width: 300, height: 300))]))
        // 64 x 48 turned is 48 x 64: fitted, 225 x 300; each side half a
        // pixel over, so that the drawing's rounding never falls short.
        let scale = plan.scale(width: 64, height: 48, maxResultDimension: 8192, maxPixels: 50_000_000)
        #expect(abs(scale - max(225.5 / 48, 300.5 / 64)) < 0.000001, "\(scale)")
        // The pixel limit still holds.
        let limited = plan.scale(width: 64, height: 48, maxResultDimension: 8192, maxPixels: 10_000)
        #expect((64 * limited).rounded(.up) * (48 * limited).rounded(.up) <= 10_000)
    }

    @Test func stepsWithPixelsAreScaledToTheDrawing() throws {
        var zoomed = Resize(width: 300, height: 300)
        (zoomed.zoomX, zoomed.zoomY) = (0.5, 0.5)
        let steps: [ImageOperation] = [.cropPlaced(width: 100, height: 0.5, gravity: Gravity(.north, x: 10, y: 0.25)), .resize(zoomed),
                                       .cropPlaced(width: 100, height: 100, gravity: .centre)]
        let drawn = VectorPlan.steps(steps, drawnAt: 3)
        #expect(drawn[0] == .cropPlaced(width: 300, height: 0.5, gravity: Gravity(.north, x: 30, y: 0.25)))
        guard case .resize(let resize) = drawn[1] else { Issue.record("not a resize: \(drawn[1])"); return }
        #expect(resize.zoomX == nil && resize.zoomY == nil, "the drawing has the zoom")
        #expect(drawn[2] == steps[2], "after the resize, the drawing's size is the answer's")
        // Drawn smaller, a pixel stays a pixel, never a fraction.
        #expect(VectorPlan.steps([.cropPlaced(width: 2, height: 2, gravity: .centre), .resize(Resize(width: 10, height: 10))], drawnAt: 0.1)[0]
                == .cropPlaced(width: 1, height: 1, gravity: .centre))
        // Drawn larger, a side stays within what a URL may write (more
        // than any drawing has): the cut is the same, and no error names
        // a side the URL never wrote.
        let wide = VectorPlan.steps([.cropPlaced(width: 900_000, height: 10, gravity: .centre), .resize(Resize(width: 10, height: 10))], drawnAt: 3)
        #expect(wide[0] == .cropPlaced(width: 1_000_000, height: 30, gravity: .centre))
        #expect(try CropAspect.placedSize(width: 1_000_000, height: 30, aspect: nil, in: (640, 480)) == (640, 30))
    }

    @Test func svgAndPDFDrawingsKeepTheirLibrariesBounds() throws {
        let plan = try #require(VectorPlan([.resize(Resize(width: 4000, height: 4000))]))
        // A 1 x 1 drawing asked at 4000: libvips draws it, poppler stops at 100.
        #expect(SVGDocumentDrawing.scale(width: 1, height: 1, plan: plan, maxResultDimension: 8192, maxPixels: 50_000_000) > 4000)
        #expect(PDFPageDrawing.scale(width: 1, height: 1, plan: plan, maxResultDimension: 8192, maxPixels: 50_000_000) == 100)
        // No plan: drawn at 1, lowered to the pixel limit, never under 0.001.
        #expect(SVGDocumentDrawing.scale(width: 100, height: 100, plan: nil, maxResultDimension: 8192, maxPixels: 50_000_000) == 1)
        #expect(PDFPageDrawing.scale(width: 1_000_000, height: 1_000_000, plan: nil, maxResultDimension: 8192, maxPixels: 100) == 0.001)
    }

    @Test func stepsWhoseSizeOnlyThePixelsDecideLeaveTheDrawingAtItsOwnSize() {
        let fit = ImageOperation.resize(Resize(width: 300, height: 300))
        #expect(VectorPlan([.trim(threshold: 10, colour: nil, equalHorizontal: false, equalVertical: false), fit]) == nil)
        #expect(VectorPlan([.cropPlaced(width: 100, height: 100, gravity: .objects()), fit]) == nil)
        #expect(VectorPlan([.rotate(degrees: 90)]) == nil, "no resize")
    }

    @Test func theDrawingsScaleComesBackWithIt() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 1, 2, 3])
        let read = try #require(VectorDrawingOutput.read(VectorDrawingOutput.written(png: png, scale: 4.6953125)))
        #expect(read.png == png && read.scale == 4.6953125)
        #expect(VectorDrawingOutput.read(Data([1, 2, 3])) == nil)
        let plan = try #require(VectorPlan([.rotate(degrees: 90), .cropPlaced(width: 10, height: 0.5, gravity: .east, aspect: CropAspect(ratio: 2)),
                                            .resize(Resize(width: 300, height: 300))]))
        #expect(VectorDrawingOutput.argument(plan).flatMap(VectorDrawingOutput.plan(from:)) == plan)
    }
}
