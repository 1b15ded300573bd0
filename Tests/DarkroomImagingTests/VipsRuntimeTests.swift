import DarkroomImaging
import Synchronization
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct VipsRuntimeTests {
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

    /// PDF (poppler) and BMP (ImageMagick): Darkroom never turns them on.
    /// (The SVG loader from memory is turned on for the whole process by
    /// the first run that allows drawing SVG, so it is not among them.)
    @Test(arguments: ["document.pdf", "written.bmp"])
    func untrustedLoadersAreBlocked(fixture: String) throws {
        // libvips has loaders for these and finds them; Darkroom blocks
        // them, so libvips refuses to run them, whatever asks it.
        // libvips' error buffer is shared by every thread, and tests run in
        // parallel: probe until one answer's message is intact.
        let bytes = fixture == "written.bmp" ? try RawPixels(width: 4, height: 4, filledWith: [1, 2, 3]).encoded(.bmp)
            : [UInt8](try Fixtures.data(fixture))
        var messages: [String] = []
        for _ in 0..<20 {
            guard case .refused(let loader?, let message) = try VipsRuntime.probe(bytes) else {
                Issue.record("libvips loaded \(fixture)")
                return
            }
            #expect(loader.contains(fixture.hasSuffix("bmp") ? "Magick" : "Pdf"), "\(loader)")
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

/// The warning sink is the process's: these tests add receivers of their
/// own beside the logger's and each other's, and count only what they
/// caused, so they run in parallel with everything else.
@Suite(.offCooperativePool) struct VipsWarningTests {
    /// Runs `body` with a receiver of every warning added, and returns what
    /// it received.
    private func receivingWarnings(_ body: () async throws -> Void) async rethrows -> [(domain: String, message: String)] {
        let collected = Locked<[(domain: String, message: String)]>([])
        let id = VipsRuntime.addWarningReceiver(VipsRuntime.WarningSink { domain, message in
            collected.withLock { $0.append((domain, message)) }
        })
        defer { VipsRuntime.removeWarningReceiver(id) }
        try await body()
        return collected.withLock { $0 }
    }

    /// A cut-short JPEG makes libvips warn ("error in tile ..."); the
    /// warning reaches the sink (and so the logger), not the terminal.
    @Test func warningsGoToTheSink() async throws {
        try VipsRuntime.start()
        let data = try Fixtures.data("truncated.jpg")
        let warnings = try await receivingWarnings {
            try await onOwnThread {
                _ = try? data.withUnsafeBytes { raw in
                    let image = try VImage.load(raw, loader: .jpeg, shrink: 8)
                    return try image.encodedInTest(.png)
                }
            }
        }
        #expect(warnings.contains { $0.domain == "VIPS" && $0.message.hasPrefix("error in tile") }, "\(warnings)")
    }

    /// A server hears of every damaged upload's warnings for as long as it
    /// runs: the 200,000th warning reaches the sink as the first did. (When
    /// the sink was a bare closure, each delivery wrapped it deeper, and
    /// this overflowed the stack.)
    @Test func theSinkStaysAsItWasThroughAnyNumberOfWarnings() async throws {
        try VipsRuntime.start()
        let domain = "test-\(UInt64.random(in: 0...UInt64.max))"
        let warnings = try await receivingWarnings {
            try await onOwnThread {
                for _ in 0..<200_000 { VipsRuntime.deliverWarning(domain: domain, message: "a warning") }
            }
        }
        #expect(warnings.count { $0.domain == domain } == 200_000)
    }

    /// A receiver removed hears nothing more, and the others still hear.
    @Test func receiversComeAndGoIndependently() async throws {
        let domain = "test-\(UInt64.random(in: 0...UInt64.max))"
        let outer = try await receivingWarnings {
            let inner = await receivingWarnings {
                VipsRuntime.deliverWarning(domain: domain, message: "both")
            }
            #expect(inner.filter { $0.domain == domain }.map(\.message) == ["both"])
            VipsRuntime.deliverWarning(domain: domain, message: "outer only")
        }
        #expect(outer.filter { $0.domain == domain }.map(\.message) == ["both", "outer only"])
    }
}
