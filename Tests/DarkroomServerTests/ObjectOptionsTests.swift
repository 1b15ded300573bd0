import Darkroom
@testable import DarkroomServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// imgproxy Pro's object detection options, as Pro's URLs write them.
@Suite(.offCooperativePool) struct ObjectOptionsTests {
    func options(_ path: String) throws -> ImageURLOptions {
        try ImageURL(path: "/_/" + path + "/plain/http://example.com/a.jpg").options
    }

    func refused(_ path: String) -> String? {
        do {
            _ = try options(path)
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func objectGravityAsProWritesIt() throws {
        #expect(try options("g:obj").gravity == .objects())
        #expect(try options("g:obj:face:cat:dog").gravity == .objects(ObjectClasses(names: ["face", "cat", "dog"])))
        #expect(try options("gravity:objw:all:2:face:10").gravity
            == .objects(ObjectClasses([.init(name: "all", weight: 2), .init(name: "face", weight: 10)])))
        let crop = try #require(try options("c:256:256:obj:face").crop)
        #expect(crop.gravity == .objects(ObjectClasses(names: ["face"])))
        // Pairs, weights above 0, plain names; nowhere but crops.
        for bad in ["g:objw:face", "g:objw:face:0", "g:objw:face:x", "g:obj:fa.ce", "ex:1:obj", "wm:0.5:obj", "op:obj", "op:sm"] {
            #expect(refused(bad) != nil, "\(bad)")
        }
        let many = (0...ObjectClasses.maxEntries).map { "c\($0)" }.joined(separator: ":")
        #expect(refused("g:obj:" + many) != nil, "at most \(ObjectClasses.maxEntries) classes")
    }

    @Test func objectsPositionTakesGravitiesFocusPointsAndProp() throws {
        #expect(try options("op:we:10:5").objectsPosition == ObjectsPosition(Gravity(.west, x: 10, y: 5)))
        #expect(try options("obj_pos:fp:0.3:0.4").objectsPosition == ObjectsPosition(.focusPoint(x: 0.3, y: 0.4)))
        #expect(try options("objects_position:prop").objectsPosition == ObjectsPosition(proportional: true))
        #expect(refused("op:prop:1") != nil && refused("op:fp:2:0") != nil)
        // It goes into the run's options.
        let processing = try options("g:obj/op:no").processing(format: nil)
        #expect(processing.objectsPosition == ObjectsPosition(.north))
    }

    @Test func detectionStepsComeFirstAndCropObjectsBeforeTheCrop() throws {
        let steps = try options("bd:5:face/dd:1/crop_objects:1.2:face/c:100:100/rs:fill:50:50").processing(format: nil).operations
        let faces = ObjectClasses(names: ["face"])
        #expect(steps[0] == .blurDetections(sigma: 5, classes: faces))
        #expect(steps[1] == .drawDetections(classes: .all))
        #expect(steps[2] == .cropObjects(scale: 1.2, classes: faces))
        #expect(steps[3] == .cropPlaced(width: 100, height: 100, gravity: .centre))
        // Off: bd:0, dd:0, crop_objects:0.
        #expect(try options("bd:0/dd:0/crop_objects:0").processing(format: nil).operations.count == 1)
        #expect(refused("bd:500") != nil && refused("crop_objects:200") != nil)
    }

    @Test func coIsContrastAloneAndCropObjectsWithClasses() throws {
        let contrast = try options("co:1.2")
        #expect(contrast.colour.contrast == 1.2 && contrast.cropObjects == nil)
        let crop = try options("co:1.2:face")
        #expect(crop.colour.contrast == 1 && crop.cropObjects == ImageURLOptions.ObjectCrop(scale: 1.2, classes: ObjectClasses(names: ["face"])))
    }

    @Test func facesAreServedBlurredAndListedByInfo() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            let plain = try await client.execute(uri: "/img/_/f:png/plain/local:///face.jpg", method: .get)
            let blurred = try await client.execute(uri: "/img/_/bd:10:face/f:png/plain/local:///face.jpg", method: .get)
            #expect(plain.status == .ok && blurred.status == .ok, "\(String(buffer: blurred.body))")
            #expect(plain.body != blurred.body)
            let info = try await client.execute(uri: "/info/_/do:1/plain/local:///face.jpg", method: .get)
            #expect(info.status == .ok, "\(String(buffer: info.body))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: info.body)) as? [String: Any])
            let objects = try #require(json["objects"] as? [[String: Any]])
            #expect(objects.count == 1)
            let face = try #require(objects.first)
            #expect(face["class_id"] as? Int == 0 && face["class_name"] as? String == "face")
            let confidence = try #require(face["confidence"] as? Double)
            let left = try #require(face["left"] as? Double), width = try #require(face["width"] as? Double)
            #expect(confidence > 0.5 && confidence < 1)
            #expect(left > 0.3 && left < 0.4 && width > 0.12 && width < 0.25, "her face, as fractions of the photo: \(face)")
            // Without do, no objects key.
            let none = try await client.execute(uri: "/info/_/plain/local:///face.jpg", method: .get)
            #expect(!String(buffer: none.body).contains("\"objects\""))
        }
    }
}
