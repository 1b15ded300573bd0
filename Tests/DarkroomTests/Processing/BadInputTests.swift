@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite struct BadInputTests {
    func failure(for data: Data, limits: ImageLimits = .default) -> DarkroomError? {
        do {
            _ = try process(data, ProcessingOptions(operations: [.resize(Resize(width: 100, height: 100))], limits: limits))
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("random.bin", DarkroomError.Kind.notAnImage, "unknown format"),
        ("page.html", .notAnImage, "HTML"),
        ("drawing.svg", .notAnImage, "SVG"),
        ("document.pdf", .notAnImage, "PDF"),
        ("truncated.jpg", .corruptImage, "truncated"),
        ("huge-header.png", .tooManyPixels, "100000 x 100000"),
    ])
    func eachBadInputGetsItsOwnClearError(fixture: String, kind: DarkroomError.Kind, words: String) throws {
        let error = try #require(failure(for: try Fixtures.data(fixture)))
        #expect(error.kind == kind)
        #expect(error.description.contains(words), "\(error)")
    }

    @Test func emptyInput() {
        #expect(failure(for: Data())?.kind == .emptyInput)
    }

    @Test func tooManyBytesIsCheckedBeforeDecoding() throws {
        let data = try Corpus.data("Aqua.jpg")
        let error = try #require(failure(for: data, limits: ImageLimits(maxSourceBytes: 100_000)))
        #expect(error.kind == .tooManyBytes)
        #expect(error.reason.contains("100000"))
    }

    @Test func tooManyPixelsIsCheckedFromTheHeader() throws {
        let error = try #require(failure(for: try Corpus.data("Aqua.jpg"), limits: ImageLimits(maxSourcePixels: 1_000_000)))
        #expect(error.kind == .tooManyPixels)
        #expect(error.reason.contains("2560 x 1600"))
    }

    @Test func everyPrefixOfAJPEGFailsCleanly() throws {
        // Cut a real photo at many points: each is an error or an image,
        // never a crash.
        let data = try Fixtures.data("landscape.jpg")
        #expect(failure(for: data) == nil, "the whole photo processes")
        let clean: Set<DarkroomError.Kind> = [.emptyInput, .notAnImage, .corruptImage]
        for length in Array(stride(from: 0, to: data.count, by: max(1, data.count / 40))) + [data.count - 2, data.count - 1] {
            let error = failure(for: data.prefix(length))
            #expect(error.map { clean.contains($0.kind) } == true, "\(length) of \(data.count) bytes: \(String(describing: error))")
            #expect(error?.reason.isEmpty == false)
        }
    }

    @Test func aBadOptionNamesWhatWasWrong() throws {
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", output: OutputOptions(format: .jpeg, quality: 0)) }
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", output: OutputOptions(format: .heic)) }
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.blur(sigma: -1)]) }
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.resize(Resize(width: 0, height: 10))]) }
    }
}

@Suite struct CancellationTests {
    @Test func aCancelledTaskPublishesNothing() async throws {
        let data = try Corpus.data("RainDrops.jpg")
        let processor = ImageProcessor()
        let task = Task {
            try await processor.process(data, options: ProcessingOptions(operations: [.resize(Resize(width: 8000, height: nil, enlarge: true))],
                                                                         output: OutputOptions(format: .png)))
        }
        task.cancel()
        await #expect {
            _ = try await task.value
        } throws: { error in
            (error as? DarkroomError)?.kind == .cancelled
        }
    }

    @Test func aPulledKillSwitchStopsLibvipsMidway() async throws {
        // A slow run (an 8000 px PNG made from a photo); pulling the switch
        // from another thread stops it before it would have finished.
        let data = try Corpus.data("RainDrops.jpg")
        // No time limit to speak of: a loaded parallel run can pass the default 20 s.
        let options = ProcessingOptions(operations: [.resize(Resize(width: 8000, height: nil, enlarge: true)), .sepia(intensity: 0.8)],
                                        output: OutputOptions(format: .png), limits: ImageLimits(maxProcessingTime: .seconds(600)))
        func timedRun(pullingAfter pause: Duration?) async throws -> (DarkroomError?, Duration) {
            let killSwitch = KillSwitch()
            let clock = ContinuousClock()
            let start = clock.now
            let run = Task {
                try await onOwnThread { () -> DarkroomError? in
                    do throws(DarkroomError) { _ = try ImageProcessor.processBlocking(data, options: options, killSwitch: killSwitch); return nil }
                    catch { return error }
                }
            }
            if let pause {
                try await Task.sleep(for: pause)
                killSwitch.pull()
            }
            return (try await run.value, clock.now - start)
        }
        let (error, stopped) = try await timedRun(pullingAfter: .milliseconds(300))
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
        let (none, whole) = try await timedRun(pullingAfter: nil)
        #expect(none == nil)
        #expect(stopped < whole, "stopped after \(stopped); the whole run takes \(whole)")
    }
}

@Suite struct ColourStepsOnBadInputTests {
    /// Sepia on a small image computes the pixels in memory, before the
    /// encode: a cut-short source must still say so, on both paths.
    @Test(arguments: [100, 4000])
    func aTruncatedJPEGWithSepiaSaysItIsTruncated(width: Int) throws {
        let options = ProcessingOptions(operations: [.resize(Resize(width: width, height: width, enlarge: width > 1000)), .sepia(intensity: 0.8)])
        let data = try Fixtures.data("truncated.jpg")
        do throws(DarkroomError) {
            _ = try process(data, options)
            Issue.record("a truncated JPEG was processed")
        } catch {
            #expect(error.kind == .corruptImage, "\(error)")
            #expect(error.description.contains("truncated"), "\(error)")
        }
    }
}
