@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct GravityTests {
    @Test(arguments: [
        // A 100 x 60 cut of 300 x 200: 200 and 140 to spare.
        (Gravity.centre, 100, 70), (Gravity(.centre, x: 10, y: -20), 110, 50),
        (Gravity(.north, x: 5, y: 7), 105, 7), (Gravity(.south, x: 0, y: 7), 100, 133),
        (Gravity(.east, x: 30, y: 0), 170, 70), (Gravity(.west, x: 30, y: 5), 30, 75),
        (Gravity(.northEast, x: 10, y: 10), 190, 10), (Gravity(.southWest, x: 10, y: 10), 10, 130),
        // Offsets never move the cut out of the image.
        (Gravity(.west, x: 500, y: 0), 200, 70), (Gravity(.north, x: 0, y: -50), 100, 0),
        // A focus point centres the cut on it, kept inside.
        (Gravity.focusPoint(x: 0.5, y: 0.5), 100, 70), (Gravity.focusPoint(x: 0.25, y: 0.75), 25, 120),
        (Gravity.focusPoint(x: 0, y: 1), 0, 140),
    ])
    func placement(gravity: Gravity, left: Int, top: Int) {
        let placed = gravity.placement(outer: (300, 200), inner: (100, 60))
        #expect(placed.left == left && placed.top == top, "\(gravity.key): \(placed)")
    }

    /// imgproxy's arithmetic: an offset below 1 is a share of the outer
    /// side; the centre of an odd spare rounds (spare + 1) / 2 half to even;
    /// pixel offsets are scaled by the device pixel ratio.
    @Test(arguments: [
        (Gravity(.north, x: 0, y: 0.1), 1.0, (300, 200), 100, 20), (Gravity(.east, x: 0.25, y: 0), 1.0, (300, 200), 125, 70),
        (Gravity(.centre, x: -0.1, y: 0), 1.0, (300, 200), 70, 70),
        (Gravity.centre, 1.0, (301, 201), 101, 71), (Gravity.centre, 1.0, (303, 203), 102, 72),
        (Gravity(.west, x: 5, y: 0), 2.0, (300, 200), 10, 70), (Gravity(.west, x: 0.5, y: 0), 2.0, (300, 200), 150, 70),
    ] as [(Gravity, Double, (Int, Int), Int, Int)])
    func placementAsImgproxy(gravity: Gravity, offsetScale: Double, outer: (Int, Int), left: Int, top: Int) {
        let placed = gravity.placement(outer: outer, inner: (100, 60), offsetScale: offsetScale)
        #expect(placed.left == left && placed.top == top, "\(gravity.key) in \(outer): \(placed)")
    }

    @Test func keysAndCodingKeepTheOldFormWithoutOffsets() throws {
        #expect(Gravity.northEast.key == "north-east")
        #expect(Gravity(.east, x: 10, y: 2.5).key == "east:10:2.5")
        #expect(Gravity.focusPoint(x: 0.5, y: 0.5).key == "focus-point:0.5:0.5")
        for gravity in [Gravity.smart, Gravity(.south, x: -3, y: 4), .focusPoint(x: 0.2, y: 0.9)] {
            let data = try JSONEncoder().encode([gravity])
            #expect(try JSONDecoder().decode([Gravity].self, from: data) == [gravity])
        }
        #expect(String(decoding: try JSONEncoder().encode([Gravity.west]), as: UTF8.self) == "[\"west\"]")
        for bad in ["[\"focus-point:2:0\"]", "[\"up\"]", "[\"east:1\"]", "[\"east:nan:0\"]"] {
            #expect(throws: DecodingError.self, "\(bad)") { try JSONDecoder().decode([Gravity].self, from: Data(bad.utf8)) }
        }
    }

    // The red block marks the top-left 40 x 40 of the 240 x 160 fixture.
    @Test(arguments: [
        (Gravity(.west, x: 60, y: 0), false), (Gravity(.east, x: 80, y: 0), true),
        (Gravity.focusPoint(x: 0, y: 0), true), (Gravity.focusPoint(x: 1, y: 0.5), false),
    ])
    func fillCropsMoveByOffsetAndFocusPoint(gravity: Gravity, keepsTopLeft: Bool) throws {
        let result = try process(fixture: "landscape.jpg", [.resize(Resize(width: 160, height: 160, mode: .fill, gravity: gravity))])
        #expect((result.width, result.height) == (160, 160))
        #expect(isRed(try pixels(of: result).pixel(x: 2, y: 2)) == keepsTopLeft, "\(gravity.key)")
    }

    @Test func placedCropsTakeFractionsAndWholeSides() throws {
        let half = try process(fixture: "landscape.jpg", [.cropPlaced(width: 0.5, height: 0.5, gravity: .northWest)])
        #expect((half.width, half.height) == (120, 80))
        #expect(isRed(try pixels(of: half).pixel(x: 2, y: 2)))
        let corner = try process(fixture: "landscape.jpg", [.cropPlaced(width: 0.5, height: 0.5, gravity: .southEast)])
        #expect(!isRed(try pixels(of: corner).pixel(x: 2, y: 2)))
        let band = try process(fixture: "landscape.jpg", [.cropPlaced(width: 0, height: 40, gravity: .north)])
        #expect((band.width, band.height) == (240, 40))
        for bad in [Double.nan, -1, 1e300] {
            #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.cropPlaced(width: bad, height: 10, gravity: .centre)]) }
        }
        #expect(throws: DarkroomError.self) {
            try process(fixture: "landscape.jpg", [.cropPlaced(width: 10, height: 10, gravity: .focusPoint(x: 3, y: 0))])
        }
    }
}
