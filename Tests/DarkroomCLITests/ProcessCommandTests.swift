import DarkroomCLI
import DarkroomImaging
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct ProcessCommandTests {
    @Test func processesCorpusPhotosIntoAFolder() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let inputs = ["Aqua.jpg", "FreshFlower.jpg", "Storm.jpg"].map { Corpus.photo($0).path }

        let code = await CommandLineRunner.run(["process"] + inputs + ["--resize", "600", "--filter", "sepia:0.8", "-o", out.path])

        #expect(code == 0)
        for (name, size) in [("Aqua", (600, 375)), ("FreshFlower", (600, 451)), ("Storm", (600, 400))] {
            let bytes = [UInt8](try Data(contentsOf: out.appendingPathComponent("\(name).jpg")))
            let pixels = try RawPixels.decode(bytes, loader: .jpeg)
            #expect((pixels.width, pixels.height) == size, "\(name)")
            // Sepia: red above green above blue, on average.
            let mean = (0..<3).map { band in stride(from: band, to: pixels.bytes.count, by: 3).reduce(0) { $0 + Int(pixels.bytes[$1]) } }
            #expect(mean[0] > mean[1] && mean[1] > mean[2], "\(name) is sepia-toned")
        }
    }

    @Test func oneInputToANamedFileInAnotherFormat() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let target = out.appendingPathComponent("thumb.webp").path
        let code = await CommandLineRunner.run(["process", Corpus.photo("Wood.jpg").path, "--resize", "200x100", "--fit", "fill", "--format", "webp", "-o", target])
        #expect(code == 0)
        let pixels = try RawPixels.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: target))), loader: .webp)
        #expect((pixels.width, pixels.height) == (200, 100))
    }

    @Test func gravityWithOffsetsAndFocusPoints() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let landscape = Fixtures.url("landscape.jpg").path   // 240 x 160, red at the top-left
        for (gravity, red) in [("east:80:0", true), ("west:60:0", false), ("focus-point:0:0", true), ("focus-point:1:0.5", false)] {
            let target = out.appendingPathComponent("\(red)-\(gravity).png").path
            let code = await CommandLineRunner.run(["process", landscape, "--resize", "160x160", "--fit", "fill", "--gravity", gravity, "--format", "png", "-o", target])
            #expect(code == 0, "\(gravity)")
            let pixels = try RawPixels.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: target))), loader: .png)
            let corner = Array(pixels.bytes[0..<3])
            #expect((corner[0] > 200 && corner[1] < 60) == red, "\(gravity): \(corner)")
        }
        for bad in ["focus-point:2:0", "east:1", "smart:1:1", "up"] {
            let code = await CommandLineRunner.run(["process", landscape, "--resize", "100", "--gravity", bad, "-o", out.appendingPathComponent("x.jpg").path])
            #expect(code != 0, "\(bad)")
        }
    }

    @Test func jpegXLWithItsFlagAndAnimationsStayAnimated() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let refused = await CommandLineRunner.run(["process", Fixtures.url("landscape.jxl").path, "-o", out.path])
        #expect(refused == 1)
        let target = out.appendingPathComponent("small.jxl").path
        let code = await CommandLineRunner.run(["process", Fixtures.url("landscape.jxl").path, "--jpeg-xl", "--resize", "120", "--format", "jxl", "-o", target])
        #expect(code == 0)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: target)))
        #expect(Array(bytes.prefix(2)) == [0xFF, 0x0A], "a JPEG XL codestream")

        let gif = out.appendingPathComponent("small.gif").path
        #expect(await CommandLineRunner.run(["process", Fixtures.url("animated.gif").path, "--resize", "60", "-o", gif]) == 0)
        let frames = try RawPixels.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: gif))), loader: .gif, pages: -1)
        #expect((frames.width, frames.height) == (60, 160), "four frames of 60 x 40")
    }

    @Test func aBadInputIsReportedAndTheOthersStillRun() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let inputs = [Fixtures.url("page.html").path, Corpus.photo("Garden.jpg").path, out.appendingPathComponent("missing.jpg").path]
        let code = await CommandLineRunner.run(["process"] + inputs + ["--resize", "300", "-o", out.path])
        #expect(code == 1)
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("Garden.jpg").path))
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("page.jpg").path))
    }

    @Test(arguments: [
        ["process", "x.jpg", "-o", "y.jpg", "--resize", "0x10"],
        ["process", "x.jpg", "-o", "y.jpg", "--filter", "vintage"],
        ["process", "x.jpg", "-o", "y.jpg", "--format", "pdf"],
        ["process", "x.jpg", "-o", "y.jpg", "--quality", "101"],
        ["process", "x.jpg", "-o", "y.jpg", "--max-processing-seconds", "0"],
        ["book", "x.jpg", "-o", "y.pdf", "--max-processing-seconds", "3601"],
        ["process", "x.jpg"],
        ["process", "-o", "y.jpg"],
        ["nonsense"],
    ])
    func usageErrorsExitWithTwo(arguments: [String]) async {
        #expect(await CommandLineRunner.run(arguments) == 2)
    }

    /// The processing time limit comes from the flag, else from the
    /// variable `serve` reads too; a bad one is a usage error that names it.
    @Test func theTimeLimitFromTheEnvironmentIsChecked() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let input = Fixtures.url("landscape.jpg").path
        let bad = try await DarkroomProcess.run(["process", input, "-o", out.appendingPathComponent("a.png").path],
                                                environment: ["DARKROOM_MAX_PROCESSING_SECONDS": "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("DARKROOM_MAX_PROCESSING_SECONDS"), "\(bad.status) \(bad.stderr)")
        // The flag wins over the variable.
        let flag = try await DarkroomProcess.run(["process", input, "-o", out.appendingPathComponent("b.png").path, "--max-processing-seconds", "60"],
                                                 environment: ["DARKROOM_MAX_PROCESSING_SECONDS": "soon"])
        #expect(flag.status == 0, "\(flag.stderr)")
    }

    @Test func sameNamesFromDifferentFoldersDoNotOverwriteEachOther() async throws {
        let out = try Fixtures.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: out) }
        let code = await CommandLineRunner.run(["process", Fixtures.url("landscape.jpg").path, Fixtures.url("landscape.jpg").path, "-o", out.path])
        #expect(code == 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: out.path).sorted()
        #expect(names == ["landscape-2.jpg", "landscape.jpg"])
    }
}
