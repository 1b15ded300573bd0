@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// The outputs of a set of fixture requests, through both engines, are
/// kept in Tests/Fixtures/processing-outputs.json with the
/// ``ProcessingVersion`` they were made at. An output that changes while
/// the version does not would be served from caches keyed by the old
/// version as if it were the new: the test fails, and says to raise the
/// number. Record anew with DARKROOM_RECORD_OUTPUTS=1 (on the libvips the
/// file names; another libvips changes the key by itself).
@Suite(.offCooperativePool) struct ProcessingVersionTests {
    struct Record: Codable, Equatable {
        var number: Int
        var libvips: String
        var outputs: [String: String]
    }

    static let recordFile = Fixtures.url("processing-outputs.json")

    /// Each engine's kinds of work: the thumbnail path (JPEG, PNG, WebP,
    /// sepia, a fill's crop) and libvips' (other outputs, CMYK, a colour
    /// profile, EXIF rotation, an animation, its own steps).
    static let requests: [(name: String, fixture: String, operations: [ImageOperation], format: ImageFormat?)] = [
        ("jpeg-fit", "landscape.jpg", [.resize(Resize(width: 100, height: 100))], .jpeg),
        ("jpeg-fill-sepia", "landscape.jpg", [.resize(Resize(width: 64, height: 64, mode: .fill, gravity: .east)), .sepia(intensity: 0.8)], .jpeg),
        ("png-fit", "filtered.png", [.resize(Resize(width: 120, height: nil))], .jpeg),
        ("webp-fit", "landscape.webp", [.resize(Resize(width: 80, height: nil))], .jpeg),
        ("avif-fit", "landscape.avif", [.resize(Resize(width: 80, height: nil))], .jpeg),
        ("jpeg-to-png", "landscape.jpg", [.resize(Resize(width: 100, height: 100))], .png),
        ("cmyk", "cmyk.jpg", [.resize(Resize(width: 100, height: 100))], .jpeg),
        ("display-p3", "display-p3.jpg", [.resize(Resize(width: 100, height: 100))], .jpeg),
        ("rotated", "right-orientation.jpg", [.resize(Resize(width: 100, height: 100))], .jpeg),
        ("alpha-to-webp", "alpha.png", [.resize(Resize(width: 100, height: 100))], .webp),
        ("jpeg-to-avif", "landscape.jpg", [.resize(Resize(width: 100, height: 100))], .avif),
        ("animation", "animated.gif", [.resize(Resize(width: 50, height: nil))], .gif),
        ("blur-sharpen", "landscape.jpg", [.blur(sigma: 2), .sharpen(sigma: 1)], .jpeg),
        ("fill-odd-spare", "landscape.jpg", [.resize(Resize(width: 63, height: 64, mode: .fill))], .jpeg),
        ("fill-dpr-offset", "landscape.jpg", [.resize(Resize(width: 40, height: 40, mode: .fill, gravity: Gravity(.north, x: 0, y: 0.1), dpr: 2))], .jpeg),
        ("frame", "landscape.jpg", [.resize(Resize(width: 101, height: 100)),
                                    .frame(Frame(extend: .southEast, padding: .init(top: 3, right: 0, bottom: 0, left: 5)))], .png),
    ]

    static func outputs() throws -> [String: String] {
        var outputs: [String: String] = [:]
        for request in requests {
            let options = ProcessingOptions(operations: request.operations, output: OutputOptions(format: request.format))
            let result = try ProcessingRun(data: try Fixtures.data(request.fixture), options: options, killSwitch: KillSwitch()).run()
            outputs[request.name] = String(Checksum.of(result.data), radix: 16)
        }
        return outputs
    }

    @Test func outputsChangeOnlyWithTheProcessingVersion() async throws {
        try VipsRuntime.start()
        let outputs = try await onOwnThread { try Self.outputs() }
        let current = Record(number: ProcessingVersion.number, libvips: VipsRuntime.version, outputs: outputs)
        if ProcessInfo.processInfo.environment["DARKROOM_RECORD_OUTPUTS"] == "1" {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            try encoder.encode(current).write(to: Self.recordFile)
            return
        }
        let recorded = try JSONDecoder().decode(Record.self, from: try Data(contentsOf: Self.recordFile))
        try #require(recorded.libvips == current.libvips,
                     "recorded with libvips \(recorded.libvips), running \(current.libvips): the key differs anyway; record anew")
        let changed = outputs.keys.filter { outputs[$0] != recorded.outputs[$0] }.sorted()
        if recorded.number == current.number {
            #expect(changed.isEmpty, "\(changed) changed at processing version \(current.number): raise ProcessingVersion.number, then record anew with DARKROOM_RECORD_OUTPUTS=1")
        } else {
            Issue.record("recorded at processing version \(recorded.number), now \(current.number): record anew with DARKROOM_RECORD_OUTPUTS=1")
        }
    }

    @Test func theVersionIsInEveryProcessedKey() {
        let request = ImageRequest(url: URL(string: "https://example.com/a.jpg")!, operations: [.resize(Resize(width: 10, height: 10))])
        #expect(request.processedKey.hasSuffix("|p\(ProcessingVersion.current)"))
        #expect(ProcessingVersion.current.contains("vips\(VipsRuntime.version)"))
    }
}
