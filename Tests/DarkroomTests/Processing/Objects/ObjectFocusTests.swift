@testable import Darkroom
import Testing

/// Where object gravity puts its cut, as values: the modes choose the
/// objects, the position places them.
@Suite struct ObjectFocusTests {
    func face(_ left: Double, _ top: Double, _ side: Double, confidence: Double = 0.9) -> DetectedObject {
        DetectedObject(classID: 0, className: "face", confidence: confidence, left: left, top: top, width: side, height: side)
    }

    func left(_ objects: [DetectedObject], weights: [Double]? = nil, mode: ObjectDetection.GravityMode = .maxScoreArea,
              position: ObjectsPosition = .centre, image: (Int, Int) = (1000, 200), cut: (Int, Int) = (200, 200)) -> Int? {
        let weighted = zip(objects, weights ?? objects.map { _ in 1 }).map { ObjectFocus.Weighted(object: $0, weight: $1) }
        return ObjectFocus(objects: weighted, mode: mode, position: position).placement(image: image, cut: cut)?.left
    }

    @Test func noObjectsNoPlacement() {
        #expect(left([]) == nil)
    }

    @Test func maxScoreAreaCoversTheMostWeight() {
        // Two faces close together on the left, one alone on the right.
        let faces = [face(50, 50, 60), face(150, 50, 60), face(800, 50, 60)]
        let pair = left(faces)!
        #expect(pair <= 50 && pair + 200 >= 210, "both of the pair: \(pair)")
        #expect(pair == 30, "the pair's box (50...210) centred: \(pair)")
        // Weighted, the lone face wins.
        let lone = left(faces, weights: [1, 1, 5])!
        #expect(lone <= 800 && lone + 200 >= 860, "\(lone)")
    }

    @Test func oneBestTakesTheLargestSurest() {
        let faces = [face(50, 50, 60, confidence: 0.9), face(700, 20, 150, confidence: 0.8)]
        #expect(left(faces, mode: .oneBest) == 674, "centred as imgproxy centres: half of the spare pixels plus one, to even")
        // Nearer the centre counts in the centremost mode.
        let centred = [face(0, 50, 80, confidence: 0.9), face(460, 50, 78, confidence: 0.9)]
        #expect(left(centred, mode: .oneBest) == 0)
        #expect(left(centred, mode: .oneBestCentermost) == 398)
    }

    @Test func positionsPlaceTheFocusBox() {
        let faces = [face(400, 50, 100)]
        #expect(left(faces) == 350)
        #expect(left(faces, position: ObjectsPosition(.west)) == 400)
        #expect(left(faces, position: ObjectsPosition(.east)) == 300)
        #expect(left(faces, position: ObjectsPosition(Gravity(.east, x: 20))) == 320)
        #expect(left(faces, position: ObjectsPosition(.focusPoint(x: 0.25, y: 0.5))) == 400)
        // Proportional: 450 of 1000 across the image, 0.45 across the cut.
        #expect(left(faces, position: ObjectsPosition(proportional: true)) == 360)
        // Always inside the image.
        #expect(left([face(950, 50, 50)]) == 800)
        #expect(left([face(0, 50, 50)], position: ObjectsPosition(.east)) == 0)
    }
}
