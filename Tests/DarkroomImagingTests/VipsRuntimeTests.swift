import DarkroomImaging
import Synchronization
import Foundation
import Testing
import TestSupport

@Suite struct VipsRuntimeTests {
    @Test func startsAndReportsItsVersion() throws {
        try VipsRuntime.start()
        #expect(VipsRuntime.version.split(separator: ".").count >= 2)
    }

    @Test func allowedLoadersStillFindTheirFormats() throws {
        for (fixture, loader) in [("landscape.jpg", "VipsForeignLoadJpegBuffer"), ("alpha.png", "VipsForeignLoadPngBuffer"),
                                  ("landscape.webp", "VipsForeignLoadWebpBuffer"), ("landscape.gif", "VipsForeignLoadNsgifBuffer"),
                                  ("landscape.avif", "VipsForeignLoadHeifBuffer"), ("landscape.tif", "VipsForeignLoadTiffBuffer")] {
            let bytes = [UInt8](try Fixtures.data(fixture))
            #expect(try VipsRuntime.probe(bytes) == .loads(loader: loader), "\(fixture)")
        }
    }

    @Test(arguments: ["drawing.svg", "document.pdf"])
    func untrustedLoadersAreBlocked(fixture: String) throws {
        // libvips has loaders for these and finds them; Darkroom blocks
        // them, so libvips refuses to run them, whatever asks it.
        // libvips' error buffer is shared by every thread, and tests run in
        // parallel: probe until one answer's message is intact.
        let bytes = [UInt8](try Fixtures.data(fixture))
        var messages: [String] = []
        for _ in 0..<20 {
            guard case .refused(let loader?, let message) = try VipsRuntime.probe(bytes) else {
                Issue.record("libvips loaded \(fixture)")
                return
            }
            #expect(loader.contains(fixture.hasSuffix("svg") ? "Svg" : "Pdf"))
            messages.append(message)
            if message.contains("blocked") { break }
        }
        #expect(messages.contains { $0.contains("operation is blocked") }, "\(messages)")
    }

    @Test func rawPixelsRoundTripThroughPNG() throws {
        let pixels = RawPixels(width: 3, height: 2, bands: 3, bytes: [
            255, 0, 0, 0, 255, 0, 0, 0, 255,
            10, 20, 30, 40, 50, 60, 70, 80, 90,
        ])
        let decoded = try RawPixels.decode(try pixels.pngData(), loader: .png)
        #expect(decoded == pixels)
    }

    @Test func aFailedLoadCarriesLibvipsOwnMessage() throws {
        let bytes = [UInt8](try Fixtures.data("random.bin"))
        // libvips keeps one error buffer for the whole process: another
        // thread's failure in the parallel run can clear it between the
        // failure and its reading. Every failure names its operation; the
        // message is libvips' own whenever no other thread got in between.
        var messages: [String] = []
        for _ in 0..<50 {
            do {
                _ = try RawPixels.decode(bytes, loader: .jpeg)
                Issue.record("random bytes decoded as a JPEG")
                return
            } catch {
                #expect(error.operation == "jpegload_buffer")
                messages.append(error.message)
                if !error.message.isEmpty && error.message != "unknown libvips error" { break }
            }
        }
        #expect(messages.contains { !$0.isEmpty && $0 != "unknown libvips error" }, "\(messages)")
    }
}

@Suite(.serialized) struct VipsWarningTests {
    /// A cut-short JPEG makes libjpeg warn; the warning reaches the sink
    /// (and so the logger), not the terminal.
    @Test func warningsGoToTheSink() throws {
        try VipsRuntime.start()
        let collected = Mutex<[String]>([])
        let previous = VipsRuntime.warningSink.withLock { sink in
            let old = sink
            sink = VipsRuntime.WarningSink { _, message in collected.withLock { $0.append(message) } }
            return old
        }
        defer { VipsRuntime.warningSink.withLock { $0 = previous } }
        let data = try Fixtures.data("truncated.jpg")
        _ = try? data.withUnsafeBytes { raw in
            let image = try VImage.load(raw, loader: .jpeg, shrink: 8)
            return try image.encoded(.png)
        }
        #expect(!collected.withLock { $0 }.isEmpty)
    }

    /// A server hears of every damaged upload's warnings for as long as it
    /// runs: the 200,000th warning reaches the sink as the first did. (When
    /// the sink was a bare closure, each delivery wrapped it deeper, and
    /// this overflowed the stack.)
    @Test func theSinkStaysAsItWasThroughAnyNumberOfWarnings() async throws {
        try VipsRuntime.start()
        let count = Mutex(0)
        let previous = VipsRuntime.warningSink.withLock { sink in
            let old = sink
            sink = VipsRuntime.WarningSink { _, _ in count.withLock { $0 += 1 } }
            return old
        }
        defer { VipsRuntime.warningSink.withLock { $0 = previous } }
        try await onOwnThread {
            for _ in 0..<200_000 { VipsRuntime.deliverWarning(domain: "VIPS", message: "a warning") }
        }
        #expect(count.withLock { $0 } >= 200_000)
    }
}
