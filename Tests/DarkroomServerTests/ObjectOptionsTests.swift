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

    /// `/info`'s crop with object gravity answers where processing would
    /// cut: around the face, placed in the cut as `op` says, and where the
    /// classes asked name no face, as the fallback.
    @Test func infoCropsWithObjectGravityWhereProcessingCuts() async throws {
        @Sendable func crop(_ client: any TestClientProtocol, _ options: String) async throws -> (left: Double, top: Double, width: Double, height: Double) {
            let response = try await client.execute(uri: "/info/_/\(options)/plain/local:///face.jpg", method: .get)
            #expect(response.status == .ok, "\(options): \(String(buffer: response.body))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            let rect = try #require(json["crop"] as? [String: Double], "\(options): \(json)")
            return (try #require(rect["left"]), try #require(rect["top"]), try #require(rect["width"]), try #require(rect["height"]))
        }
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            let faceJSON = try await client.execute(uri: "/info/_/do:1/plain/local:///face.jpg", method: .get)
            let face = try #require((try JSONSerialization.jsonObject(with: Data(buffer: faceJSON.body)) as? [String: Any])?["objects"] as? [[String: Any]])[0]
            let (faceLeft, faceWidth) = (try #require(face["left"] as? Double), try #require(face["width"] as? Double))
            let faceTop = try #require(face["top"] as? Double), faceHeight = try #require(face["height"] as? Double)

            let centred = try await crop(client, "c:0.3:0.3:obj:face")
            #expect(centred.left <= faceLeft && centred.left + centred.width >= faceLeft + faceWidth, "the face's width is inside: \(centred)")
            #expect(centred.top <= faceTop && centred.top + centred.height >= faceTop + faceHeight, "and its height: \(centred)")
            #expect(abs(centred.left + centred.width / 2 - (faceLeft + faceWidth / 2)) < 0.01, "centred on the face: \(centred)")
            // Pro's objects position: the face at the cut's left edge.
            let west = try await crop(client, "c:0.3:0.3:obj:face/op:we")
            #expect(abs(west.left - faceLeft) < 0.01, "\(west) against the face at \(faceLeft)")
            #expect(try await crop(client, "op:we/c:0.3:0.3:obj:face") == west, "in either order")
            // No face among the classes: smart gravity, Pro's default fallback.
            let none = try await crop(client, "c:0.3:0.3:obj:cat")
            #expect(try await crop(client, "c:0.3:0.3:sm") == none)
            #expect(abs(none.left - centred.left) > 0.1, "\(none) is not the face's cut \(centred)")
        }
    }
}
