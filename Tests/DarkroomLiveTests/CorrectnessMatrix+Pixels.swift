import AsyncHTTPClient
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Steps with one right answer (quarter turns, flips, placed cuts,
/// padding): the answer's pixels are those of libvips' own operations, run
/// on the same source by the `vips` command with random access (a process
/// of its own: nothing of the product's code makes the reference).
extension CorrectnessMatrixTests {
    struct PixelCase: Sendable {
        var options: String
        var short: Bool
        /// The `vips` commands that make the reference from `source` into
        /// `reference`, for a `w` x `h` source.
        var commands: @Sendable (_ source: String, _ reference: String, _ w: Int, _ h: Int) -> [[String]]
    }

    static let pixelCases: [PixelCase] = [
        PixelCase(options: "rot:90", short: true) { s, r, _, _ in [["rot", s, r, "d90"]] },
        PixelCase(options: "rot:180", short: false) { s, r, _, _ in [["rot", s, r, "d180"]] },
        PixelCase(options: "rot:270", short: false) { s, r, _, _ in [["rot", s, r, "d270"]] },
        PixelCase(options: "fl:0:1", short: true) { s, r, _, _ in [["flip", s, r, "vertical"]] },
        PixelCase(options: "fl:1:1", short: false) { s, r, _, _ in [["flip", s, r + ".v", "horizontal"], ["flip", r + ".v", r, "vertical"]] },
        // Gravity south: centred across, at the bottom; east: at the right,
        // centred down, as imgproxy centres (half the room and one, to even).
        PixelCase(options: "c:1000:800:so", short: true) { s, r, w, h in [["crop", s, r, "\(centred(w - 1000))", "\(h - 800)", "1000", "800"]] },
        PixelCase(options: "c:900:700:ea", short: false) { s, r, w, h in [["crop", s, r, "\(w - 900)", "\(centred(h - 700))", "900", "700"]] },
        // White padding where there is no alpha: 10 above and below, 20 each side.
        PixelCase(options: "pd:10:20", short: false) { s, r, w, h in
            [["embed", s, r, "20", "10", "\(w + 40)", "\(h + 20)", "--extend", "background", "--background", "255 255 255"]]
        },
    ]

    /// imgproxy's offset of a centred cut with `room` to spare.
    static func centred(_ room: Int) -> Int { Int((Double(room + 1) / 2).rounded(.toNearestOrEven)) }

    @Test func turnsFlipsCutsAndPaddingAreLibvipsOwnPixels() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-matrix-pixels")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sourcesFolder = folder.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: sourcesFolder, withIntermediateDirectories: true)
        // Lossless sources compare exactly; the JPEG through the same decoder.
        let sources = try await Self.sources(in: sourcesFolder).filter {
            let ext = ($0.file as NSString).pathExtension
            return ["png", "jpg"].contains(ext) || Self.full && ext == "tif"
        }
        let cases = Self.pixelCases.filter { Self.full || $0.short }
        let origin = try await OriginServer.start(serving: sourcesFolder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path, "--allow-private-networks",
                                                         "--max-source-pixels", "\(Self.pixelLimit)"],
                                                        log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown(); await server.stop() }) { () async throws in
                var failures: [String] = []
                for source in sources where source.width > 64 {
                    for pixelCase in cases {
                        let name = "\(source.file) \(pixelCase.options)"
                        let reference = folder.appendingPathComponent("reference.png").path
                        for command in pixelCase.commands(sourcesFolder.appendingPathComponent(source.file).path, reference, source.width, source.height) {
                            let run = try await runTool("/usr/bin/vips", command)
                            guard run.status == 0 else { throw MatrixError("vips \(command.joined(separator: " ")): \(run.output)") }
                        }
                        let path = "/img/_/f:png/\(pixelCase.options)/plain/\(plainSource(origin.url("/\(source.file)")))"
                        let response = try await client.execute(HTTPClientRequest(url: server.base + path), timeout: .seconds(600))
                        let body = Data(buffer: try await response.body.collect(upTo: 256 << 20))
                        guard response.status == .ok else {
                            failures.append("\(name): \(response.status.code) \(String(decoding: body.prefix(200), as: UTF8.self))")
                            continue
                        }
                        let got = try RawPixels.decode([UInt8](body), loader: .png)
                        let expected = try RawPixels.decode([UInt8](try Data(contentsOf: URL(fileURLWithPath: reference))), loader: .png)
                        guard (got.width, got.height, got.bands) == (expected.width, expected.height, expected.bands) else {
                            failures.append("\(name): \(got.width) x \(got.height) x \(got.bands), not \(expected.width) x \(expected.height) x \(expected.bands)")
                            continue
                        }
                        let differences = zip(got.bytes, expected.bytes).reduce(0) { $0 + abs(Int($1.0) - Int($1.1)) }
                        let mean = Double(differences) / Double(got.bytes.count)
                        // The same decoder on both sides: the same bytes, bar rounding.
                        if mean > 0.01 { failures.append("\(name): mean difference \(mean) a sample") }
                    }
                }
                #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
            }
        }
    }
}
