@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// One request cannot make a huge result, nor take a core for a minute.
@Suite struct WorkLimitsTests {
    func failure(_ data: Data, _ operations: [ImageOperation], limits: ImageLimits = .default,
                 format: ImageFormat = .jpeg) async throws -> DarkroomError? {
        let options = ProcessingOptions(operations: operations, output: OutputOptions(format: format), limits: limits)
        return try await onOwnThread { () -> DarkroomError? in
            do throws(DarkroomError) { _ = try ImageProcessor.processBlocking(data, options: options); return nil } catch { return error }
        }
    }

    @Test func aResultOverTheDimensionLimitIsRefusedBeforeItIsMade() async throws {
        let photo = try Corpus.data("Aqua.jpg")
        // w:10000/el:1 once wrote a 27 MB PNG.
        let huge = try #require(try await failure(photo, [.resize(Resize(width: 10_000, height: nil, enlarge: true))], format: .png))
        #expect(huge.kind == .tooManyPixels)
        #expect(huge.reason.contains("10000 x 6250") && huge.reason.contains("8192"), "\(huge)")
        // Both paths: the JPEG thumbnail one, and libvips (with a blur after).
        let limits = ImageLimits(maxResultDimension: 100)
        for steps in [[ImageOperation.resize(Resize(width: 512, height: 512))], [.resize(Resize(width: 512, height: 512)), .blur(sigma: 1)]] {
            let error = try #require(try await failure(photo, steps, limits: limits))
            #expect(error.kind == .tooManyPixels && error.reason.contains("512 x 320"), "\(error)")
        }
        #expect(try await failure(photo, [.resize(Resize(width: 100, height: 100))], limits: limits) == nil)
        // A fill is measured after its crop, on both paths: 2560 x 1600
        // scales to 480 x 300, over 400, and is cut to 300 x 300, under it.
        let fill = ImageOperation.resize(Resize(width: 300, height: 300, mode: .fill))
        for steps in [[fill], [fill, .blur(sigma: 1)]] {
            #expect(try await failure(photo, steps, limits: ImageLimits(maxResultDimension: 400)) == nil, "\(steps)")
        }
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
