@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Faces: found where they are, kept whole by object gravity, blurred,
/// outlined and cropped to; photos without faces behave as smart gravity.
@Suite(.offCooperativePool) struct ObjectDetectionTests {
    @Test func theAstronautsFaceIsFound() throws {
        let faces = try FacePhotos.detectedFaces(in: try Fixtures.data("face.jpg"))
        try #require(faces.count == 1, "\(faces)")
        let face = faces[0]
        // Her face: eyes to chin, about 180...270 across and 80...175 down.
        #expect(face.className == "face" && face.classID == 0)
        #expect((160...200).contains(Int(face.left)) && (250...290).contains(Int(face.right)), "\(face)")
        #expect((60...100).contains(Int(face.top)) && (150...200).contains(Int(face.bottom)), "\(face)")
        #expect(face.confidence > 0.5 && face.confidence < 1, "\(face.confidence)")
    }

    /// Faces as group and street photos have them: three about 70 pixels
    /// wide in a 2560-pixel photo (2.7% of its side) are all found, each
    /// box around its face. At the old search size of 1024 none was.
    @Test func smallFacesInALargePhotoAreAllFound() throws {
        let (data, centres) = try FacePhotos.threeSmallFaces(faceWidth: 70)
        let faces = try FacePhotos.detectedFaces(in: data)
        #expect(faces.count == 3, "\(faces)")
        for centre in centres {
            #expect(faces.contains { Int($0.left) <= centre.x && centre.x <= Int($0.right) && Int($0.top) <= centre.y && centre.y <= Int($0.bottom) },
                    "no face found around \(centre): \(faces)")
        }
        var old = ObjectDetection()
        old.side = 1024
        #expect(try FacePhotos.detectedFaces(in: data, detection: old).isEmpty, "the old search size found them: the photo tests nothing")
    }

    @Test func photosWithoutFacesHaveNone() throws {
        for name in ["Dune.jpg", "GreenMeadow.jpg", "Storm.jpg"] {
            let data = try Data(contentsOf: Corpus.photo(name))
            #expect(try FacePhotos.detectedFaces(in: data).isEmpty, "\(name)")
        }
    }

    /// The left edge of a cut of the wide photo, read from its background.
    func cutLeft(_ result: ProcessedImage) throws -> Int {
        Int(try pixels(of: result).pixel(x: 0, y: 0)[0]) * 6
    }

    func fill(_ data: Data, gravity: Gravity, position: ObjectsPosition = .centre, detection: ObjectDetection = ObjectDetection()) throws -> ProcessedImage {
        var options = ProcessingOptions(operations: [.resize(Resize(width: 500, height: 500, mode: .fill, gravity: gravity))],
                                        output: OutputOptions(format: .png))
        options.objectsPosition = position
        options.objectDetection = detection
        return try process(data, options)
    }

    @Test func objectGravityKeepsTheFaceWhole() throws {
        let (data, face) = try FacePhotos.wideWithOneFace()
        // The centre's cut (450...950) misses the face, on the left.
        #expect(try cutLeft(try fill(data, gravity: .centre)) > face.right)
        let centred = try cutLeft(try fill(data, gravity: .objects()))
        #expect(centred <= face.left && centred + 500 >= face.right, "the cut \(centred)... keeps \(face)")
        // Centred on it, as far as the image allows.
        #expect(abs(centred - max(0, (face.left + face.right) / 2 - 250)) <= 6, "\(centred)")
        // Named classes and weights select faces too; others select nothing.
        #expect(try cutLeft(try fill(data, gravity: .objects(ObjectClasses(names: ["cat", "face"]))) ) == centred)
        #expect(try cutLeft(try fill(data, gravity: .objects(ObjectClasses([.init(name: "all", weight: 2)])))) == centred)
        let cats = try fill(data, gravity: .objects(ObjectClasses(names: ["cat"])))
        #expect(cats.data == (try fill(data, gravity: .smart)).data, "nothing found: smart gravity")
    }

    @Test func objectsPositionPlacesTheFaceInTheCut() throws {
        let (data, face) = try FacePhotos.wideWithOneFace()
        let west = try cutLeft(try fill(data, gravity: .objects(), position: ObjectsPosition(.west)))
        #expect(abs(west - face.left) <= 6, "the face's left edge at the cut's: \(west) for \(face)")
        let offset = try cutLeft(try fill(data, gravity: .objects(), position: ObjectsPosition(Gravity(.west, x: 30))))
        #expect(abs(offset - (face.left - 30)) <= 6, "30 pixels in: \(offset)")
        let point = try cutLeft(try fill(data, gravity: .objects(), position: ObjectsPosition(.focusPoint(x: 0.25, y: 0.5))))
        #expect(abs(point - ((face.left + face.right) / 2 - 125)) <= 6, "the face's centre a quarter across: \(point)")
        // Proportional: as far across the cut as across the image.
        let proportional = try cutLeft(try fill(data, gravity: .objects(), position: ObjectsPosition(proportional: true)))
        let centre = Double(face.left + face.right) / 2
        #expect(abs(Double(proportional) - (centre - centre / 1400 * 500)) <= 6, "\(proportional)")
    }

    @Test func withoutFacesObjectGravityIsSmartOrCentre() throws {
        let data = try Data(contentsOf: Corpus.photo("Dune.jpg"))
        let smart = try fill(data, gravity: .smart)
        #expect(try fill(data, gravity: .objects()).data == smart.data)
        var detection = ObjectDetection()
        detection.fallbackToSmart = false
        // A centre fill takes the thumbnail path, whose pixels are libvips' within one level.
        let (objects, centre) = (try pixels(of: fill(data, gravity: .objects(), detection: detection)), try pixels(of: fill(data, gravity: .centre)))
        #expect(objects.width == centre.width && objects.height == centre.height)
        #expect(zip(objects.bytes, centre.bytes).allSatisfy { abs(Int($0) - Int($1)) <= 1 })
    }

    @Test func blurDetectionsCoversEveryFaceAndNothingElse() throws {
        let (data, face) = try FacePhotos.wideWithOneFace()
        let plain = try pixels(of: try process(data, ProcessingOptions(output: OutputOptions(format: .png))))
        let blurred = try pixels(of: try process(data, ProcessingOptions(operations: [.blurDetections(sigma: 8, classes: .all)],
                                                                         output: OutputOptions(format: .png))))
        // Inside the face: detail gone (neighbours close); outside: the same pixels.
        func roughness(_ image: RawPixels) -> Int {
            var total = 0
            for y in (face.top + 10)..<(face.bottom - 10) {
                for x in (face.left + 10)..<(face.right - 10) {
                    total += abs(Int(image.pixel(x: x, y: y)[1]) - Int(image.pixel(x: x + 1, y: y)[1]))
                }
            }
            return total
        }
        #expect(roughness(blurred) * 3 < roughness(plain), "\(roughness(blurred)) against \(roughness(plain))")
        for (x, y) in [(face.left - 3, face.top), (face.right + 2, face.bottom - 1), (700, 250), (10, 10)] {
            #expect(blurred.pixel(x: x, y: y) == plain.pixel(x: x, y: y), "(\(x), \(y))")
        }
        // Classes without faces: the image as it was.
        let cats = try pixels(of: try process(data, ProcessingOptions(operations: [.blurDetections(sigma: 8, classes: ObjectClasses(names: ["cat"]))],
                                                                      output: OutputOptions(format: .png))))
        #expect(cats == plain)
    }

    @Test func drawDetectionsOutlinesTheFace() throws {
        let (data, face) = try FacePhotos.wideWithOneFace()
        let drawn = try pixels(of: try process(data, ProcessingOptions(operations: [.drawDetections(classes: .all)], output: OutputOptions(format: .png))))
        let middle = (face.top + face.bottom) / 2
        #expect(drawn.pixel(x: face.left, y: middle) == [0, 255, 0] && drawn.pixel(x: face.right - 1, y: middle) == [0, 255, 0])
        #expect(drawn.pixel(x: (face.left + face.right) / 2, y: face.bottom - 1) == [0, 255, 0])
        #expect(drawn.pixel(x: (face.left + face.right) / 2, y: middle) != [0, 255, 0], "an outline, not a fill")
        // The label above the box: some of it green text.
        let label = (face.left..<face.left + 40).flatMap { x in ((face.top - 12)..<face.top).map { drawn.pixel(x: x, y: $0) } }
        #expect(label.contains { $0[1] > 150 && $0[0] < 100 }, "a green label above the box")
    }

    @Test func cropObjectsCutsToTheFaces() throws {
        let (data, face) = try FacePhotos.wideWithOneFace()
        let (width, height) = (face.right - face.left, face.bottom - face.top)
        let exact = try process(data, ProcessingOptions(operations: [.cropObjects(scale: 1, classes: .all)], output: OutputOptions(format: .png)))
        #expect(abs(exact.width - width) <= 2 && abs(exact.height - height) <= 2, "\(exact.width) x \(exact.height) for \(width) x \(height)")
        let padded = try process(data, ProcessingOptions(operations: [.cropObjects(scale: 1.5, classes: .all)], output: OutputOptions(format: .png)))
        #expect(abs(Double(padded.width) - Double(width) * 1.5) <= 2)
        // A fill after it: the cut takes the fill's shape, and the placed crop is skipped.
        let filled = try process(data, ProcessingOptions(operations: [.cropObjects(scale: 1, classes: .all), .cropPlaced(width: 10, height: 10, gravity: .centre),
                                                                      .resize(Resize(width: 300, height: 100, mode: .fill))],
                                                         output: OutputOptions(format: .png)))
        #expect(filled.width == 300 && filled.height == 100)
        // Nothing found: nothing cut, and the placed crop does its work.
        let cats = try process(data, ProcessingOptions(operations: [.cropObjects(scale: 1, classes: ObjectClasses(names: ["cat"])),
                                                                    .cropPlaced(width: 100, height: 50, gravity: .centre)],
                                                       output: OutputOptions(format: .png)))
        #expect(cats.width == 100 && cats.height == 50)
    }

    /// A photo without faces: blurring, outlining and cropping to faces
    /// leave it as it was, for every class.
    @Test func withoutFacesTheFaceStepsLeaveThePhotoAsItWas() throws {
        let data = try Data(contentsOf: Corpus.photo("Dune.jpg"))
        let fit: ImageOperation = .resize(Resize(width: 400, height: 400))
        func run(_ step: ImageOperation?) throws -> RawPixels {
            // The resize first, so that both runs take the same engine.
            try pixels(of: try process(data, ProcessingOptions(operations: [.rotate(degrees: 0), fit] + (step.map { [$0] } ?? []),
                                                               output: OutputOptions(format: .png))))
        }
        let plain = try run(nil)
        #expect(try run(.blurDetections(sigma: 8, classes: .all)) == plain, "bd")
        #expect(try run(.drawDetections(classes: .all)) == plain, "dd")
        #expect(try run(.cropObjects(scale: 1, classes: .all)) == plain, "crop_objects")
    }

    /// Images a stranger can send that are nothing like a photo: the
    /// search takes its fixed size and finds nothing.
    @Test func oddShapesAndNoiseFindNothing() throws {
        var noise = SystemRandomNumberGenerator()
        let shapes: [(Int, Int, [UInt8]?)] = [(1, 3000, nil), (3000, 1, nil), (2, 2, nil), (600, 400, [128, 128, 128]), (500, 500, nil)]
        for (width, height, fill) in shapes {
            let bytes = fill.map { value in (0..<width * height).flatMap { _ in value } }
                ?? (0..<width * height * 3).map { _ in UInt8.random(in: 0...255, using: &noise) }
            let data = Data(try RawPixels(width: width, height: height, bands: 3, bytes: bytes).pngData())
            #expect(try FacePhotos.detectedFaces(in: data).isEmpty, "\(width) x \(height)")
            let result = try process(data, ProcessingOptions(operations: [.blurDetections(sigma: 5, classes: .all), .drawDetections(classes: .all),
                                                                          .resize(Resize(width: 1, height: 1, mode: .fill, gravity: .objects()))],
                                                             output: OutputOptions(format: .png)))
            #expect(result.width == 1 && result.height == 1)
        }
    }

    @Test func outOfRangeSettingsAreRefused() throws {
        let data = try Fixtures.data("face.jpg")
        var options = ProcessingOptions(operations: [.blurDetections(sigma: 5, classes: .all)])
        options.objectDetection.side = 10_000
        #expect(throws: DarkroomError.self) { try process(data, options) }
        options.objectDetection = ObjectDetection()
        options.operations = [.blurDetections(sigma: 500, classes: .all)]
        #expect(throws: DarkroomError.self) { try process(data, options) }
        options.operations = [.cropObjects(scale: 0, classes: .all)]
        #expect(throws: DarkroomError.self) { try process(data, options) }
        options.operations = [.drawDetections(classes: ObjectClasses(names: ["no such/class"]))]
        #expect(throws: DarkroomError.self) { try process(data, options) }
    }

    @Test func animationsAndBadPositionsAreRefusedWithAReason() throws {
        // Every frame searched, and cuts that follow faces differing in size: refused.
        let animated = refusal(try Fixtures.data("animated.gif"),
                               ProcessingOptions(operations: [.resize(Resize(width: 20, height: 20, mode: .fill, gravity: .objects()))],
                                                 output: OutputOptions(format: .gif)).unhurried)
        #expect(animated?.kind == .invalidOption && animated?.reason.contains("still") == true, "\(String(describing: animated))")
        var options = ProcessingOptions(operations: [.resize(Resize(width: 100, height: 50, mode: .fill, gravity: .objects()))],
                                        output: OutputOptions(format: .png))
        options.objectsPosition = ObjectsPosition(Gravity(.west, x: .infinity))
        #expect(refusal(try Fixtures.data("face.jpg"), options.unhurried)?.kind == .invalidOption)
    }

    @Test func detectionSettingsAreInTheCacheKeyOnlyWhereUsed() {
        var plain = ProcessingOptions(operations: [.resize(Resize(width: 10, height: 10))])
        let before = plain.identifier
        plain.objectDetection.side = 800
        #expect(plain.identifier == before)
        var faces = ProcessingOptions(operations: [.resize(Resize(width: 10, height: 10, mode: .fill, gravity: .objects()))])
        let faceKey = faces.identifier
        faces.objectDetection.side = 800
        #expect(faces.identifier != faceKey)
        faces.objectsPosition = ObjectsPosition(.west)
        #expect(faces.identifier.contains("op-west"))
    }
}
