@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Every EXIF orientation, at sizes below, near and above the source's: a
/// phone's portrait photo carries orientation 6, and sequential decoding
/// cannot serve rotation's out-of-order reads at large sizes.
@Suite(.offCooperativePool) struct LargeOrientationTests {
    /// A pipeline with no disk cache that fetches from a loopback origin.
    static func loopbackPipeline() throws -> ImagePipeline {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        configuration.loader.policy = SourcePolicy(allowPrivateNetworks: true)
        return try ImagePipeline(configuration: configuration)
    }

    /// `request` with a time limit no busy machine reaches: the subject
    /// here is orientation, not speed.
    static func unhurried(_ request: ImageRequest) -> ImageRequest {
        var request = request
        request.options = request.options.unhurried
        return request
    }

    /// Wood.jpg is 2560 x 1920.
    static let source: Data? = try? Corpus.data("Wood.jpg")

    /// Each run full size, on a thread of its own: not on the cooperative
    /// pool that the suite's servers share.
    @Test(arguments: 1...8)
    func everyOrientationAtEverySize(orientation: Int) async throws {
        let data = EXIFOrientation.jpeg(try #require(Self.source), orientation: orientation)
        let swaps = orientation >= 5
        let upright = swaps ? (width: 1920, height: 2560) : (width: 2560, height: 1920)
        for (side, enlarge) in [(600, false), (1600, false), (2500, false), (2560, false), (3000, true)] {
            let options = ProcessingOptions(operations: [.resize(Resize(width: side, height: side, enlarge: enlarge))],
                                            output: OutputOptions(format: .jpeg, quality: 70))
            let image = try await onOwnThread { try process(data, options) }
            let scale = min(Double(side) / Double(upright.width), Double(side) / Double(upright.height))
            let expected = enlarge || scale < 1 ? (Int((Double(upright.width) * scale).rounded()), Int((Double(upright.height) * scale).rounded()))
                                                : (upright.width, upright.height)
            #expect((image.width, image.height) == expected, "orientation \(orientation), fit \(side)")
        }
        // Fill a portrait box near full size, as `--resize 1000x1600 --fit fill` does.
        let fill = try await onOwnThread { try process(data, ProcessingOptions(operations: [.resize(Resize(width: 1000, height: 1600, mode: .fill))])) }
        #expect((fill.width, fill.height) == (1000, 1600), "orientation \(orientation), fill")
    }

    /// Through the pipeline (the server's and fetch's path), from a local
    /// origin: every orientation, below, near and above the source's size.
    @Test func everyOrientationThroughThePipeline() async throws {
        let source = try #require(Self.source)
        let folder = try Fixtures.temporaryFolder("darkroom-rotated")
        defer { try? FileManager.default.removeItem(at: folder) }
        for orientation in 1...8 {
            try EXIFOrientation.jpeg(source, orientation: orientation).write(to: folder.appendingPathComponent("o\(orientation).jpg"))
        }
        let origin = try await OriginServer.start(serving: folder)
        let pipeline = try Self.loopbackPipeline()
        for orientation in 1...8 {
            let upright = orientation >= 5 ? (width: 1920, height: 2560) : (width: 2560, height: 1920)
            for side in [1600, 2500, 3000] {
                let scale = min(1, Double(side) / Double(max(upright.width, upright.height)))
                let expected = (Int((Double(upright.width) * scale).rounded()), Int((Double(upright.height) * scale).rounded()))
                let response = try await pipeline.image(for: Self.unhurried(ImageRequest(url: origin.url("/o\(orientation).jpg"),
                                                                                    operations: [.resize(Resize(width: side, height: side))],
                                                                                    output: OutputOptions(format: .jpeg, quality: 70))))
                #expect((response.image.width, response.image.height) == expected, "orientation \(orientation), fit \(side)")
            }
            let fill = try await pipeline.image(for: Self.unhurried(ImageRequest(url: origin.url("/o\(orientation).jpg"),
                                                                            operations: [.resize(Resize(width: 1000, height: 1600, mode: .fill))],
                                                                            output: OutputOptions(format: .jpeg, quality: 70))))
            #expect((fill.image.width, fill.image.height) == (1000, 1600), "orientation \(orientation), fill")
        }
        await pipeline.shutdown()
        await origin.stop()
    }

    /// The pixels turn, not only the size: all eight orientations of the
    /// corner photo come out upright, through the processor on either
    /// engine and through the pipeline.
    @Test func everyOrientationComesOutUprightByItsPixels() async throws {
        for orientation in 1...8 {
            let data = try CornerPhoto.jpeg(orientation: orientation)
            for (operations, format) in [([ImageOperation.resize(Resize(width: 120, height: 120))], ImageFormat.jpeg),
                                         ([.resize(Resize(width: 200, height: 100, mode: .fill))], .png),
                                         ([.sepia(intensity: 0)], .png)] {
                let image = try await onOwnThread { try process(data, ProcessingOptions(operations: operations, output: OutputOptions(format: format))) }
                #expect(CornerPhoto.problem(in: image.data) == nil, "orientation \(orientation), \(operations): \(CornerPhoto.problem(in: image.data) ?? "")")
            }
        }
        let folder = try Fixtures.temporaryFolder("darkroom-corners")
        defer { try? FileManager.default.removeItem(at: folder) }
        for orientation in 1...8 { try CornerPhoto.jpeg(orientation: orientation).write(to: folder.appendingPathComponent("c\(orientation).jpg")) }
        let origin = try await OriginServer.start(serving: folder)
        let pipeline = try Self.loopbackPipeline()
        for orientation in 1...8 {
            let response = try await pipeline.image(for: LargeOrientationTests.unhurried(ImageRequest(url: origin.url("/c\(orientation).jpg"),
                                                                                                      operations: [.resize(Resize(width: 120, height: 120))],
                                                                                                      output: OutputOptions(format: .jpeg))))
            #expect(CornerPhoto.problem(in: response.image.data) == nil, "pipeline, orientation \(orientation): \(CornerPhoto.problem(in: response.image.data) ?? "")")
        }
        await pipeline.shutdown()
        await origin.stop()
    }
}
