@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct BadInputTests {
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

    /// A TIFF may declare any number of samples a pixel; one of 64 is
    /// refused as what it is (a 422), not failed midway (a 500).
    @Test func aTIFFOfSixtyFourChannelsIsRefusedByItsChannels() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-bands")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("bands.tif").path
        let made = try await runTool("/usr/bin/vips", ["black", path, "8", "8", "--bands", "64"])
        try #require(made.status == 0, "\(made.output)")
        let error = try #require(failure(for: try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(error.kind == .notAnImage && error.reason.contains("64 channels"), "\(error)")
    }

    @Test func emptyInput() {
        #expect(failure(for: Data())?.kind == .emptyInput)
    }

    /// The source that would take longest to decode: 20,001 scans of 49
    /// megapixels, 42 s in libvips on an idle machine, longer on a busy one.
    /// A limit checked before decoding answers in milliseconds; one checked
    /// after would answer after the decode. A quarter of the decode's idle time
    /// tells the two apart whatever the machine is doing.
    static func slowToDecode() async throws -> Data {
        try Data(contentsOf: try await HostileShapes.url("many-scans.jpg"))
    }

    /// Limits that let the slow file through every other check, and have
    /// libvips (PNG output) be the one that would decode it.
    static func lettingItThrough(_ limits: (inout ImageLimits) -> Void) -> ImageLimits {
        var l = ImageLimits(maxJPEGScans: 1_000_000, maxDecodeMemory: 1 << 30)
        limits(&l)
        return l
    }

    func timedFailure(for data: Data, limits: ImageLimits) async throws -> (DarkroomError?, Duration) {
        try await onOwnThread {
            let started = ContinuousClock.now
            let options = ProcessingOptions(operations: [.resize(Resize(width: 100, height: 100))], output: OutputOptions(format: .png), limits: limits)
            do {
                _ = try ProcessingRun(data: data, options: options, killSwitch: KillSwitch()).run()
                return (nil, ContinuousClock.now - started)
            } catch {
                return (error as? DarkroomError, ContinuousClock.now - started)
            }
        }
    }

    @Test func tooManyBytesIsCheckedBeforeDecoding() async throws {
        let data = try Corpus.data("Aqua.jpg")
        let error = try #require(failure(for: data, limits: ImageLimits(maxSourceBytes: 100_000)))
        #expect(error.kind == .tooManyBytes)
        #expect(error.reason.contains("100000"))
        let slow = try await Self.slowToDecode()
        let (refused, took) = try await timedFailure(for: slow, limits: Self.lettingItThrough { $0.maxSourceBytes = slow.count - 1 })
        #expect(refused?.kind == .tooManyBytes && took < .seconds(10), "\(String(describing: refused)) after \(took): decoded first?")
    }

    @Test func tooManyPixelsIsCheckedFromTheHeader() async throws {
        let error = try #require(failure(for: try Corpus.data("Aqua.jpg"), limits: ImageLimits(maxSourcePixels: 1_000_000)))
        #expect(error.kind == .tooManyPixels)
        #expect(error.reason.contains("2560 x 1600"))
        let (refused, took) = try await timedFailure(for: try await Self.slowToDecode(), limits: Self.lettingItThrough { $0.maxSourcePixels = 40_000_000 })
        #expect(refused?.kind == .tooManyPixels && took < .seconds(10), "\(String(describing: refused)) after \(took): decoded first?")
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
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.blur(sigma: -1)]) }
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.resize(Resize(width: 0, height: 10))]) }
    }
}

@Suite(.offCooperativePool) struct CancellationTests {
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

    /// A slow run (an 8000 px PNG made from a photo), its switch pulled
    /// from another thread once libvips has begun computing pixels, stops
    /// with part of them made: libvips' own count of the pixels it computed
    /// shows where, not a clock.
    @Test func aPulledKillSwitchStopsLibvipsMidway() async throws {
        let data = try Corpus.data("RainDrops.jpg")
        // No time limit to speak of: a loaded parallel run can pass the default 20 s.
        let options = ProcessingOptions(operations: [.resize(Resize(width: 8000, height: nil, enlarge: true)), .sepia(intensity: 0.8)],
                                        output: OutputOptions(format: .png), limits: ImageLimits(maxProcessingTime: .seconds(600)))
        let killSwitch = KillSwitch()
        let run = Task {
            try await onOwnThread { () -> DarkroomError? in
                do throws(DarkroomError) { _ = try ImageProcessor.processBlocking(data, options: options, killSwitch: killSwitch); return nil }
                catch { return error }
            }
        }
        // Watched, and pulled, from a thread of its own: a poll on the
        // cooperative pool, starved by a loaded parallel run, once saw the
        // whole run end before it looked.
        let began = try await onOwnThread { () -> Bool in
            let deadline = ContinuousClock.now + .seconds(120)
            while ContinuousClock.now < deadline {
                if killSwitch.vips.progressPercent > 0 {
                    killSwitch.pull()
                    return true
                }
                usleep(500)
            }
            return false
        }
        #expect(began, "libvips began computing")
        let error = try await run.value
        #expect(error?.kind == .cancelled, "\(String(describing: error))")
        let stoppedAt = killSwitch.vips.progressPercent
        #expect(stoppedAt > 0 && stoppedAt < 100, "stopped at \(stoppedAt)% of the pixels")
    }
}
