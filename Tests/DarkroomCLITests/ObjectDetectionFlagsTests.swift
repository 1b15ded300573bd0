import Darkroom
@testable import DarkroomCLI
import DarkroomServer
import Foundation
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
            // Each refused naming its own flag.
            refuses([:], bad, naming: bad[0])
        }
    }
}

/// `serve --pdf`: the server runs itself as the page-drawing child.
@Suite struct PDFFlagsTests {
    @Test func pdfIsOffUnlessAskedAndItsSettingsAreChecked() throws {
        #expect(try ServeFlagsTests().configuration([]).limits.pdfPages == nil)
        let on = try #require(try ServeFlagsTests().configuration(["--pdf", "--pdf-max-memory-mb", "2048"]).limits.pdfPages)
        #expect(on.command.last == "render-pdf-page" && FileManager.default.isExecutableFile(atPath: on.command[0]))
        #expect(on.maxMemory == 2048 << 20 && on.background)
        let imgproxy = try ServeFlagsTests().configuration([], environment: ["DARKROOM_PDF": "1", "IMGPROXY_PDF_NO_BACKGROUND": "true"])
        #expect(imgproxy.limits.pdfPages?.background == false)
        refuses([:], ["--pdf", "--pdf-max-memory-mb", "100"], naming: "--pdf-max-memory-mb must be at least 512")
    }
}

/// `serve --video-thumbnails`: the server runs itself as the frame-decoding child.
@Suite struct VideoFlagsTests {
    @Test func videoIsOffUnlessAskedAndItsSettingsAreChecked() throws {
        #expect(try ServeFlagsTests().configuration([]).limits.videoThumbnails == nil)
        let on = try #require(try ServeFlagsTests().configuration(["--video-thumbnails", "--video-thumbnail-second", "2.5",
                                                                    "--video-thumbnail-keyframes", "true", "--video-max-memory-mb", "2048"]).limits.videoThumbnails)
        #expect(on.command.last == "render-video-frame" && FileManager.default.isExecutableFile(atPath: on.command[0]))
        #expect(on.second == 2.5 && on.keyframes && on.maxMemory == 2048 << 20 && on.probeBytes == 5_000_000)
        let imgproxy = try #require(try ServeFlagsTests().configuration([], environment: [
            "IMGPROXY_ENABLE_VIDEO_THUMBNAILS": "true", "IMGPROXY_VIDEO_THUMBNAIL_SECOND": "3", "IMGPROXY_VIDEO_THUMBNAIL_PROBE_SIZE": "1000000",
        ]).limits.videoThumbnails)
        #expect(imgproxy.second == 3 && imgproxy.probeBytes == 1_000_000 && !imgproxy.keyframes)
        // A negative number after a space reads as a flag to the parser:
        // written with '=', it reaches the range check.
        for (bad, flag) in [(["--video-thumbnails", "--video-thumbnail-second=-1"], "--video-thumbnail-second '-1'"),
                            (["--video-thumbnails", "--video-max-memory-mb", "100"], "--video-max-memory-mb"),
                            (["--video-thumbnails", "--video-thumbnail-probe-size", "1"], "--video-thumbnail-probe-size")] {
            refuses([:], bad, naming: flag)
        }
    }
}
