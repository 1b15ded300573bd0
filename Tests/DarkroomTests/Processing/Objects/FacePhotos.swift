@testable import Darkroom
import DarkroomImaging
import Foundation
import TestSupport

/// Photos with faces for the object tests, made from Tests/Fixtures/face.jpg
/// (the astronaut Eileen Collins, NASA, public domain; see
/// Tests/Fixtures/README.md).
enum FacePhotos {
    /// A 1400 x 500 photo whose background says where it is (red is x / 6,
    /// green y / 2), with one face, about 140 pixels, left of centre; and
    /// that face's box, as the detector finds it.
    static func wideWithOneFace() throws -> (data: Data, face: (left: Int, top: Int, right: Int, bottom: Int)) {
        let big = try pixels(of: try process(try Fixtures.data("face.jpg"),
                                             ProcessingOptions(operations: [.resize(Resize(width: 819, height: nil, enlarge: true))],
                                                               output: OutputOptions(format: .png))))
        let (width, height) = (1400, 500)
        var bytes = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                bytes[(y * width + x) * 3] = UInt8(x / 6)
                bytes[(y * width + x) * 3 + 1] = UInt8(y / 2)
            }
        }
        // The 240 x 240 around the face, at (150, 130).
        let (patchLeft, patchTop, side, atX, atY) = (236, 83, 240, 150, 130)
        for y in 0..<side {
            for x in 0..<side {
                let from = ((patchTop + y) * big.width + patchLeft + x) * 3
                let to = ((atY + y) * width + atX + x) * 3
                bytes.replaceSubrange(to..<to + 3, with: big.bytes[from..<from + 3])
            }
        }
        let data = Data(try RawPixels(width: width, height: height, bands: 3, bytes: bytes).pngData())
        let faces = try detectedFaces(in: data)
        guard faces.count == 1, let face = faces.first else { throw FaceFixtureError(found: faces.count) }
        return (data, (Int(face.left), Int(face.top), Int(face.right.rounded(.up)), Int(face.bottom.rounded(.up))))
    }

    /// A 2560 x 1600 corpus photo with the astronaut's face pasted three
    /// times, `faceWidth` pixels wide, one in each third (as
    /// bench/face_composites.py makes them); and where each face is.
    static func threeSmallFaces(faceWidth: Int = 70) throws -> (data: Data, faces: [(x: Int, y: Int)]) {
        let photo = try pixels(of: try process(try Data(contentsOf: Corpus.photo("Garden.jpg")), ProcessingOptions(output: OutputOptions(format: .png))))
        // face.jpg's face is about 91 pixels wide, its box's centre near (221, 122).
        let scale = Double(faceWidth) / 91
        let side = Int((512 * scale).rounded())
        let face = try pixels(of: try process(try Fixtures.data("face.jpg"),
                                              ProcessingOptions(operations: [.resize(Resize(width: side, height: side, mode: .force, enlarge: true))],
                                                                output: OutputOptions(format: .png))))
        // The square of twice the face's width around it.
        let (cutLeft, cutTop, cut) = (Int(121 * scale), Int(22 * scale), Int(200 * scale))
        var bytes = photo.bytes
        var centres: [(x: Int, y: Int)] = []
        for (third, atY) in [(0, 300), (1, 900), (2, 500)] {
            let atX = third * photo.width / 3 + 200
            for y in 0..<cut {
                for x in 0..<cut {
                    let from = ((cutTop + y) * face.width + cutLeft + x) * 3
                    let to = ((atY + y) * photo.width + atX + x) * 3
                    bytes.replaceSubrange(to..<to + 3, with: face.bytes[from..<from + 3])
                }
            }
            centres.append((atX + Int((221 - 121) * scale), atY + Int((122 - 22) * scale)))
        }
        let data = Data(try RawPixels(width: photo.width, height: photo.height, bands: 3, bytes: bytes).encoded(.jpeg(quality: 92, progressive: false)))
        return (data, centres)
    }

    /// The faces the run finds in an image, in its pixels.
    static func detectedFaces(in data: Data, detection: ObjectDetection = ObjectDetection()) throws -> [DetectedObject] {
        var options = ProcessingOptions()
        options.objectDetection = detection
        let run = ProcessingRun(data: data, options: options.unhurried, killSwitch: KillSwitch())
        try ProcessingRun.startLibvips()
        return try withRawBytes(of: data) { raw in
            guard case .image(let format) = ImageFormat.sniff(data) else { throw FaceFixtureError(found: -1) }
            let image = try run.materialised(try run.load(raw, format: format, shrink: 1), for: "test")
            return try run.objects(in: image, classes: .all).map(\.object)
        }
    }

    struct FaceFixtureError: Error {
        var found: Int
    }
}
