import AsyncHTTPClient
import DarkroomServer
import Foundation
import NIOCore
import Testing
import TestSupport

/// `darkroom serve` started with nothing but an imgproxy deployment's
/// variables (signing, presets, quality, an allow-list, the address)
/// serves imgproxy-signed URLs as that deployment did, refuses what it
/// refused, and names at start the variable it does not honour.
@Suite(.offCooperativePool) struct ImgproxyDeploymentTests {
    @Test func anImgproxyEnvironmentServesImgproxySignedURLs() async throws {
        let origin = try await OriginServer.start(serving: Corpus.photosFolder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("darkroom-imgproxy-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = folder.appendingPathComponent("serve.log")
            let environment = [
                "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_KEY": "736563726574", "IMGPROXY_SALT": "68656C6C6F",
                "IMGPROXY_PRESETS": "thumb=rs:fill:120:80/g:no", "IMGPROXY_QUALITY": "40",
                "IMGPROXY_ALLOWED_SOURCES": origin.url("/").absoluteString, "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true",
                "IMGPROXY_USE_GCS": "true",
            ]
            let process = try DarkroomProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path], log: log,
                                                    environment: environment)
            try await cleaningUp({ await DarkroomProcess.stop(process) }) { () async throws in
                let port = try await ServingProcess.listening(process, log: log).port
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                    let server = StartingServer(client: client, port: port)
                    func get(_ path: String) async throws -> (status: UInt, body: Data) { try await server.get(path) }
                    let signer = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
                    func signed(_ path: String) -> String { "/img/\(signer.sign(path))\(path)" }
                    let source = origin.url("/Aqua.jpg").absoluteString

                    let preset = try await get(signed("/pr:thumb/plain/\(source)@jpg"))
                    #expect(preset.status == 200, "\(String(decoding: preset.body.prefix(200), as: UTF8.self))")
                    #expect(try ImageSize.of(preset.body) == (120, 80))
                    // IMGPROXY_QUALITY is the quality: the same bytes as q:40 asked for.
                    let asked = try await get(signed("/rs:fill:120:80/g:no/q:40/plain/\(source)@jpg"))
                    let other = try await get(signed("/rs:fill:120:80/g:no/q:90/plain/\(source)@jpg"))
                    #expect(asked.status == 200 && preset.body == asked.body)
                    #expect(other.status == 200 && other.body.count > preset.body.count)
                    // Signing on: an unsigned URL is refused; the allow-list holds.
                    #expect(try await get("/img/_/pr:thumb/plain/\(source)@jpg").status == 403)
                    let elsewhere = try await get(signed("/pr:thumb/plain/http://203.0.113.9/a.jpg@jpg"))
                    #expect(elsewhere.status == 404 && String(decoding: elsewhere.body, as: UTF8.self).contains("allowed source prefix"))
                    let text = try await BlockingFile.read(log)
                    #expect(text.contains("imgproxy settings not honoured: IMGPROXY_USE_GCS"), "\(text)")
                }
            }
        }
    }
}

extension ImgproxyDeploymentTests {
    /// The rest of the drop-in, from imgproxy's variables alone: a path
    /// prefix, client hints, caching headers, encoder settings, origin
    /// requests, CORS and SVG start without a warning and take effect.
    @Test func theDropInsSettingsStartWithoutAWarning() async throws {
        let origin = try await OriginServer.start(serving: Fixtures.folder)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let folder = try Fixtures.temporaryFolder("darkroom-imgproxy-dropin")
            defer { try? FileManager.default.removeItem(at: folder) }
            let log = folder.appendingPathComponent("serve.log")
            // Each setting's reading is checked in
            // ImgproxyEnvironmentTests.eachOfTheDropInsSettingsIsRead; here
            // they start a server without a warning and answer as set.
            let environment = ImgproxyDropIn.environment(cookieBaseURL: origin.url("/").absoluteString)
            let process = try DarkroomProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path], log: log,
                                                    environment: environment)
            try await cleaningUp({ await DarkroomProcess.stop(process) }) { () async throws in
                let port = try await ServingProcess.listening(process, log: log).port
                let client = HTTPClient(eventLoopGroupProvider: .singleton)
                try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                    var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/images/_/w:50/plain/\(origin.url("/landscape.jpg").absoluteString)@png")
                    request.headers.add(name: "DPR", value: "2")
                    request.headers.add(name: "Cookie", value: "session=1")
                    let server = StartingServer(client: client, port: port)
                    _ = try await server.get("/health")
                    let response = try await client.execute(request, timeout: .seconds(60))
                    let body = Data(buffer: try await response.body.collect(upTo: 1 << 20))
                    #expect(response.status == .ok)
                    #expect(try ImageSize.of(body) == (100, 67), "w:50 at the hinted DPR of 2")
                    #expect([UInt8](body)[25] == 3 && [UInt8](body)[28] == 1, "a quantised, interlaced PNG")
                    #expect(response.headers.first(name: "Vary") == "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
                    #expect(response.headers.first(name: "Access-Control-Allow-Origin") == "*")
                    #expect(origin.lastHeaders("/landscape.jpg")?["cookie"] == "session=1")
                    #expect(origin.lastHeaders("/landscape.jpg")?["user-agent"] == "thumbs/0.1")
                    let text = try await BlockingFile.read(log)
                    #expect(!text.contains("not honoured"), "\(text)")
                }
            }
        }
    }
}

/// A file read off the cooperative pool.
enum BlockingFile {
    static func read(_ url: URL) async throws -> String {
        try await onOwnThread { String(decoding: try Data(contentsOf: url), as: UTF8.self) }
    }
}
