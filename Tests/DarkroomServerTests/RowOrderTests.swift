import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// Steps that ask for a source's rows out of the order one decoding pass
/// gives them (quarter and half turns, vertical flips), and cuts from the
/// bottom, on a full-size photo with no shrinking resize before them, in
/// each format libvips decodes in one pass: each answers with the turned
/// photo, never a 422 that blames the file.
@Suite struct RowOrderTests {
    /// A 2560 x 1600 corpus photo, and the same pixels as PNG, TIFF and WebP.
    static func sources() async throws -> URL {
        let folder = try Fixtures.temporaryFolder("row-order")
        let photo = Corpus.photo("Aqua.jpg")
        try FileManager.default.copyItem(at: photo, to: folder.appendingPathComponent("photo.jpg"))
        for format in ["png", "tif", "webp"] {
            let made = try await runTool("/usr/bin/vips", ["copy", photo.path, folder.appendingPathComponent("photo.\(format)").path])
            try #require(made.status == 0, "vips copy: \(made.output)")
        }
        return folder
    }

    /// The options, and the answer's size they give on a 2560 x 1600 photo.
    static let steps: [(options: String, width: Int, height: Int)] = [
        ("rot:90", 1600, 2560),
        ("rot:180", 2560, 1600),
        ("rot:270", 1600, 2560),
        ("fl:0:1", 2560, 1600),
        ("fl:1:1", 2560, 1600),
        ("rs:fit:5000:5000/rot:90", 1600, 2560),
        ("c:1000:500:so", 1000, 500),
        // As imgproxy, a crop's size is the turned image's.
        ("c:1000:500:soea/rot:90", 1000, 500),
        ("rot:90/fl:0:1/c:600:600:so", 600, 600),
    ]

    @Test(arguments: ["jpg", "png", "tif", "webp"])
    func turnsFlipsAndBottomCutsAnswerOnAFullSizePhoto(format: String) async throws {
        let folder = try await Self.sources()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await TestServer.withOrigin(serving: folder) { server, origin in
            let source = plainSource(origin.url("/photo.\(format)"))
            for step in Self.steps {
                let answer = try await server.get("/img/_/\(step.options)/plain/\(source)@jpg")
                #expect(answer.status == .ok, "\(step.options) on the \(format): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                guard answer.status == .ok else { continue }
                let size = try ImageSize.of(answer.body)
                #expect(size.width == step.width && size.height == step.height, "\(step.options) on the \(format): \(size)")
            }
        }
    }
}
