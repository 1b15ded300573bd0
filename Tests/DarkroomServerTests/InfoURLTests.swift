import Darkroom
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TestSupport

/// `/info` URLs with imgproxy Pro's info options, and what the route
/// answers for them.
@Suite(.offCooperativePool) struct InfoURLTests {
    private func parse(_ path: String, presets: [String: String] = [:], security: Bool = false) throws(ImageURLError) -> InfoURL {
        try InfoURL(path: path, context: ImageURLOptions.Context(presets: presets, allowsSecurityOptions: security))
    }

    @Test func infoOptionsByProsNames() throws {
        let url = try parse("/_/exif:1:1/iptc:0/cs:1/b:t/sf:true/pn:1/a:1:1/c:0.5:100:sowe/p:16/avg:1:0/dc:1:1/bh:3:5/th:1/ph:1/chs:md5:sha512/plain/http://example.com/a.jpg")
        #expect(url.source.absoluteString == "http://example.com/a.jpg")
        let info = url.info
        #expect(info.exif && info.exifCanonicalNames && !info.iptc && info.xmp)
        #expect(info.colourspace && info.bands && info.sampleFormat && info.pagesNumber && info.alpha && info.checkTransparency)
        #expect(info.crop == InfoCrop(width: 0.5, height: 100, gravity: Gravity(.southWest)))
        #expect(info.paletteColours == 16 && info.average && !info.averageIgnoresTransparent)
        #expect(info.dominantColours && info.buildMissedColours && info.blurHashComponents == (3, 5))
        #expect(info.thumbHashHex && info.perceptualHash && info.hashsums == [.md5, .sha512])
        // Long names too; image options are read as image options.
        let long = try parse("/_/colorspace:1/sample_format:1/perceptual_hash:1/rs:fill:100:100/q:50/pr:meta/plain/http://example.com/a.jpg",
                             presets: ["meta": "dominant_colors:1/exif:0/w:20"])
        #expect(long.info.colourspace && long.info.sampleFormat && long.info.perceptualHash && long.info.dominantColours && !long.info.exif)
        #expect(long.imageOptions.width == 20 && long.imageOptions.quality == 50)
    }

    @Test func badInfoOptionsAreRefusedWithTheirReason() {
        for (path, reason) in [
            ("/_/p:1/plain/http://e.com/a.jpg", "2 to 256"),
            ("/_/p:300/plain/http://e.com/a.jpg", "0 to 256"),
            ("/_/bh:10:3/plain/http://e.com/a.jpg", "0 to 9"),
            ("/_/chs:crc32/plain/http://e.com/a.jpg", "hashsum type"),
            ("/_/hs:md5:abc/plain/http://e.com/a.jpg", "32 hex digits"),
            ("/_/op:sm/plain/http://e.com/a.jpg", "unsupported gravity 'sm'"),
            ("/_/c:10:10:objw:face/plain/http://e.com/a.jpg", "in pairs"),
            ("/_/pg:-1/plain/http://e.com/a.jpg", "0 to 100000"),
            ("/_/msr:1/plain/http://e.com/a.jpg", "security option"),
            ("/_/nonsense:1/plain/http://e.com/a.jpg", "unknown option"),
            ("/_/exp:1000/plain/http://e.com/a.jpg", "expired"),
        ] {
            do {
                _ = try parse(path)
                Issue.record("\(path) was accepted")
            } catch {
                #expect(error.message.contains(reason), "\(path): \(error.message)")
            }
        }
        #expect((try? parse("/_/msr:1/plain/http://e.com/a.jpg", security: true))?.imageOptions.security.maxSourcePixels == 1_000_000)
        #expect((try? parse("/_/do:0/cl:0/vm:1/s:1/f:1/d:1/plain/http://e.com/a.jpg")) != nil, "what asks for nothing is accepted")
    }

    @Test func theRouteAnswersProsKeysAndChecksTheHashsum() async throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Aqua.jpg"))
        let md5 = Hashsum.hex(of: data, .md5)
        try await withRouter { client in
            let response = try await client.execute(uri: "/info/_/cs:1/a:1:1/chs:md5/hs:md5:\(md5)/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(json["size"] as? Int == data.count && json["mime_type"] as? String == "image/jpeg")
            #expect(json["colorspace"] as? String == "srgb" && json["alpha"] as? Bool == false && json["transparency"] as? Bool == false)
            #expect((json["hashsums"] as? [String: String])?["md5"] == md5)
            #expect(json["exif"] is [String: String] && json["exif_summary"] is [String: Any])
            for key in ["palette", "dominant_colors", "perceptual_hash", "thumb_hash", "crop", "bands"] {
                #expect(json[key] == nil, "\(key) was not asked for")
            }
            let wrong = String(md5.reversed())
            let mismatch = try await client.execute(uri: "/info/_/hs:md5:\(wrong)/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(mismatch.status == .unprocessableContent && String(buffer: mismatch.body).contains("md5"))
            let bad = try await client.execute(uri: "/info/_/p:1/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(bad.status == .notFound && String(buffer: bad.body).contains("palette"))
        }
    }

    /// Every info option that computes something answers under Pro's key,
    /// so that a Pro client's parser finds it.
    @Test func everyComputedOptionAnswersUnderProsKey() async throws {
        try await withRouter { client in
            let options = "cs:1/b:1/sf:1/pn:1/a:1:1/c:100:100/p:8/avg:1/dc:1/bh:4:3/th:1/ph:1/chs:sha256"
            let response = try await client.execute(uri: "/info/_/\(options)/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: response.body)) as? [String: Any])
            #expect(json["colorspace"] is String && json["bands"] is Int && json["sample_format"] is String && json["pages_number"] is Int)
            #expect(json["alpha"] is Bool && json["transparency"] is Bool)
            #expect(json["crop"] is [String: Any] && json["average"] is [String: Any])
            #expect((json["palette"] as? [Any])?.isEmpty == false && json["dominant_colors"] is [String: Any])
            #expect(json["blurhash"] is String && json["thumb_hash"] is String && json["perceptual_hash"] is String)
            #expect((json["hashsums"] as? [String: String])?["sha256"]?.count == 64)
        }
    }
}
