import AsyncHTTPClient
import Foundation
import Testing
import TestSupport

/// Faces at the sizes real photos have, through the server's `/info` and
/// `bd`: three faces about 70 pixels wide pasted into a 2560 x 1600 photo
/// by the `vips` command (face.jpg's face, about 91 pixels wide, scaled).
extension CorrectnessMatrixTests {
    @Test func threeSmallFacesInAFullSizePhotoAreFound() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-matrix-faces")
        defer { try? FileManager.default.removeItem(at: folder) }
        func vips(_ arguments: [String]) async throws {
            let run = try await runTool("/usr/bin/vips", arguments)
            guard run.status == 0 else { throw MatrixError("vips \(arguments.joined(separator: " ")): \(run.output)") }
        }
        let scale = 70.0 / 91
        let path = { (name: String) in folder.appendingPathComponent(name).path }
        try await vips(["resize", Fixtures.url("face.jpg").path, path("face.v"), "\(scale)"])
        // The square twice the face's width around it.
        let (left, top, side) = (Int(121 * scale), Int(22 * scale), Int(200 * scale))
        try await vips(["extract_area", path("face.v"), path("cut.v"), "\(left)", "\(top)", "\(side)", "\(side)"])
        try await vips(["copy", Corpus.photo("Garden.jpg").path, path("step0.v")])
        for (index, (x, y)) in [(200, 300), (1053, 900), (1906, 500)].enumerated() {
            try await vips(["insert", path("step\(index).v"), path("cut.v"), path("step\(index + 1).v"), "\(x)", "\(y)"])
        }
        try await vips(["copy", path("step3.v"), path("faces.png")])
        let origin = try await OriginServer.start(serving: folder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(["serve", "--cache-dir", path("cache"), "--allow-private-networks"], log: folder.appendingPathComponent("serve.log"))
            let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
            try await cleaningUp({ try? await client.shutdown(); await server.stop() }) { () async throws in
                let response = try await client.execute(HTTPClientRequest(url: server.base + "/info/_/do:1/plain/\(plainSource(origin.url("/faces.png")))"),
                                                        timeout: .seconds(Variants.sanitizer == nil ? 300 : 3600))
                let body = Data(buffer: try await response.body.collect(upTo: 1 << 20))
                let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any], "\(String(decoding: body, as: UTF8.self))")
                let objects = json["objects"] as? [[String: Any]] ?? []
                #expect(objects.count == 3, "\(objects)")
            }
        }
    }
}
