import Darkroom
@testable import DarkroomCLI
import DarkroomServer
import Testing

/// `serve`'s object detection settings, by Darkroom's flags and imgproxy
/// Pro's variables, each range-checked.
@Suite struct ObjectDetectionFlagsTests {
    @Test func flagsAndImgproxysVariables() throws {
        let defaults = try ServeFlagsTests().configuration([])
        #expect(defaults.objectDetection == ObjectDetection())
        let flags = try ServeFlagsTests().configuration(["--object-detection-size", "800", "--object-detection-confidence-threshold", "0.5",
                                                         "--object-detection-gravity-mode", "one_best", "--object-detection-fallback-to-smart-crop", "false"])
        #expect(flags.objectDetection.side == 800 && flags.objectDetection.confidenceThreshold == 0.5)
        #expect(flags.objectDetection.gravityMode == .oneBest && !flags.objectDetection.fallbackToSmart)
        let imgproxy = try ServeFlagsTests().configuration([], environment: [
            "IMGPROXY_OBJECT_DETECTION_CONFIDENCE_THRESHOLD": "0.3", "IMGPROXY_OBJECT_DETECTION_GRAVITY_MODE": "one_best_centermost",
            "IMGPROXY_OBJECT_DETECTION_FALLBACK_TO_SMART_CROP": "false",
        ])
        #expect(imgproxy.objectDetection.confidenceThreshold == 0.3 && imgproxy.objectDetection.gravityMode == .oneBestCentermost)
        #expect(!imgproxy.objectDetection.fallbackToSmart)
        for bad in [["--object-detection-size", "40"], ["--object-detection-size", "5000"], ["--object-detection-confidence-threshold", "1"],
                    ["--object-detection-gravity-mode", "largest"], ["--object-detection-fallback-to-smart-crop", "maybe"]] {
            #expect(throws: (any Error).self, "\(bad)") { try ServeFlagsTests().configuration(bad) }
        }
    }
}
