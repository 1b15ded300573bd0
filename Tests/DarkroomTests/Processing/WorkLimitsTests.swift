@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// One request cannot make a huge result, nor take a core for a minute.
@Suite(.offCooperativePool) struct WorkLimitsTests {
    func failure(_ data: Data, _ operations: [ImageOperation], limits: ImageLimits = .default,
                 format: ImageFormat = .jpeg) async throws -> DarkroomError? {
        let options = ProcessingOptions(operations: operations, output: OutputOptions(format: format), limits: limits).unhurried
        return try await onOwnThread { () -> DarkroomError? in
            do throws(DarkroomError) { _ = try ImageProcessor.processBlocking(data, options: options); return nil } catch { return error }
        }
    }

    func result(_ data: Data, _ operations: [ImageOperation], limits: ImageLimits = .default,
                format: ImageFormat = .jpeg) async throws -> ProcessedImage {
        let options = ProcessingOptions(operations: operations, output: OutputOptions(format: format), limits: limits).unhurried
        return try await onOwnThread { try ImageProcessor.processBlocking(data, options: options) }
    }

    /// As imgproxy's `max_result_dimension`: a resize whose result would be
    /// over the limit is scaled down to it (the aspect ratio kept), on both
    /// paths, so w:10000/el:1 (which once wrote a 27 MB PNG) cannot make a
    /// huge result; a step that is not a resize and would pass it is refused.
    @Test func aResultOverTheDimensionLimitIsScaledDownToIt() async throws {
        let photo = try Corpus.data("Aqua.jpg") // 2560 x 1600
        let limits = ImageLimits(maxResultDimension: 1000)
        let huge = try await result(photo, [.resize(Resize(width: 10_000, height: nil, enlarge: true))], limits: limits)
        #expect((huge.width, huge.height) == (1000, 625))
        // Both paths: the JPEG thumbnail one, and libvips (with a blur after).
        let small = ImageLimits(maxResultDimension: 100)
        for steps in [[ImageOperation.resize(Resize(width: 512, height: 512))], [.resize(Resize(width: 512, height: 512)), .blur(sigma: 1)]] {
            let image = try await result(photo, steps, limits: small)
            #expect((image.width, image.height) == (100, 63), "\(steps)")
        }
        // A fill is measured after its crop, on both paths: 2560 x 1600
        // scales to 480 x 300, over 400, and is cut to 300 x 300, under it.
        let fill = ImageOperation.resize(Resize(width: 300, height: 300, mode: .fill))
        for steps in [[fill], [fill, .blur(sigma: 1)]] {
            let image = try await result(photo, steps, limits: ImageLimits(maxResultDimension: 400))
            #expect((image.width, image.height) == (300, 300), "\(steps)")
        }
        // Padding past the limit is not a resize's to scale: refused before it is made.
        let padded = try #require(try await failure(photo, [.resize(Resize(width: 90, height: nil)), .padding(top: 0, right: 20, bottom: 0, left: 0, background: nil)],
                                                    limits: small))
        #expect(padded.kind == .tooManyPixels && padded.reason.contains("110 x") && padded.reason.contains("100"), "\(padded)")
    }

    @Test func blurAndSharpenCostIsBoundedByTheImageSize() async throws {
        let photo = try Corpus.data("Aqua.jpg")
        // bl:100 on the whole photo once took 13 s.
        let blur = try #require(try await failure(photo, [.blur(sigma: 100)]))
        #expect(blur.kind == .invalidOption)
        #expect(blur.reason.contains("blur sigma 100") && blur.reason.contains("at most 12.2"), "\(blur)")
        let sharpen = try #require(try await failure(photo, [.resize(Resize(width: 8000, height: nil, enlarge: true)), .sharpen(sigma: 10)]))
        #expect(sharpen.kind == .invalidOption && sharpen.reason.contains("sharpen"), "\(sharpen)")
        // The same blur after a resize to an answer's size is fine.
        #expect(try await failure(photo, [.resize(Resize(width: 512, height: 512)), .blur(sigma: 100)]) == nil)
    }

    /// An 8000 x 5000 PNG takes seconds to compute and encode; with 0.3 s
    /// allowed it is stopped, and libvips' count of the pixels it had
    /// computed shows it stopped midway, not at the end.
    @Test func aRunPastItsTimeLimitIsStoppedMidway() async throws {
        let photo = try Corpus.data("Aqua.jpg")
        let steps: [ImageOperation] = [.resize(Resize(width: 8000, height: nil, enlarge: true)), .sepia(intensity: 0.8)]
        let killSwitch = KillSwitch()
        let options = ProcessingOptions(operations: steps, output: OutputOptions(format: .png), limits: ImageLimits(maxProcessingTime: .milliseconds(300)))
        let error = try await onOwnThread { () -> DarkroomError? in
            do throws(DarkroomError) { _ = try ProcessingRun(data: photo, options: options, killSwitch: killSwitch).run(); return nil }
            catch { return error }
        }
        #expect(error?.kind == .processingTimedOut, "\(String(describing: error))")
        #expect(error?.reason.contains("0.3 s") == true, "\(String(describing: error))")
        let stoppedAt = killSwitch.vips.progressPercent
        #expect(stoppedAt < 100, "stopped at \(stoppedAt)% of the pixels")
    }
}
