import Darkroom
import DarkroomImaging
@testable import DarkroomServer
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing
import TestSupport

/// imgproxy's security options from URLs (`msfs`, `maf`, `mafr`; only
/// where the server allows them), and `/info`'s `s`, `f` and `d` and its
/// cache options (`cb`, `bc`, `ct`, `msfs`), each as imgproxy's docs say.
@Suite(.offCooperativePool) struct SecurityAndInfoOptionsTests {
    static func frames(_ body: ByteBuffer) throws -> Int {
        try withRawBytes(of: [UInt8](Data(buffer: body))) { raw throws(VipsError) in try VImage.load(raw, loader: .gif).pageCount }
    }

    @Test func securityOptionsFromURLsWhereAllowed() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder; $0.allowSecurityOptions = true }) { client in
            // msfs: the source's bytes (landscape.jpg has thousands).
            let small = try await client.execute(uri: "/img/_/msfs:100/plain/local:///landscape.jpg@png", method: .get)
            #expect((400...499).contains(Int(small.status.code)), "\(small.status): \(String(buffer: small.body))")
            #expect(try await client.execute(uri: "/img/_/msfs:100000000/plain/local:///landscape.jpg@png", method: .get).status == .ok)
            // maf: frames of the four-frame animation answered.
            let two = try await client.execute(uri: "/img/_/maf:2/plain/local:///animated.gif@gif", method: .get)
            #expect(two.status == .ok, "\(String(buffer: two.body))")
            #expect(try Self.frames(two.body) == 2)
            #expect(try Self.frames(try await client.execute(uri: "/img/_/maf:4/plain/local:///animated.gif@gif", method: .get).body) == 4)
            // mafr: megapixels a frame (each is 120 x 80).
            let large = try await client.execute(uri: "/img/_/mafr:0.001/plain/local:///animated.gif@gif", method: .get)
            #expect(large.status == .unprocessableContent && String(buffer: large.body).contains("a frame"), "\(String(buffer: large.body))")
            #expect(try await client.execute(uri: "/img/_/mafr:1/plain/local:///animated.gif@gif", method: .get).status == .ok)
        }
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            for option in ["msfs:100", "maf:2", "mafr:1"] {
                let refused = try await client.execute(uri: "/img/_/\(option)/plain/local:///animated.gif@gif", method: .get)
                #expect(refused.status == .notFound && String(buffer: refused.body).contains("security option"), "\(option)")
            }
        }
    }

    @Test func infoSaysTheSizeFormatAndDimensionsUnlessAskedOff() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            let all = try await client.execute(uri: "/info/_/plain/local:///landscape.jpg", method: .get)
            let json = try #require(try JSONSerialization.jsonObject(with: Data(buffer: all.body)) as? [String: Any])
            #expect(json["size"] is Int && json["format"] as? String == "jpeg" && json["width"] is Int && json["height"] is Int, "\(json)")
            let none = try await client.execute(uri: "/info/_/s:0/f:0/d:0/plain/local:///landscape.jpg", method: .get)
            let left = try #require(try JSONSerialization.jsonObject(with: Data(buffer: none.body)) as? [String: Any])
            for key in ["size", "format", "mime_type", "width", "height"] { #expect(left[key] == nil, "\(key) was asked off") }
            #expect(left["exif_summary"] != nil)
        }
    }

    @Test func infoTakesTheCacheOptions() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.allowBypassCache = true; $0.allowSecurityOptions = true }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let first = try await server.get("/info/_/cb:one/ct:photos:landscape/plain/\(source)")
            #expect(first.status == .ok && first.header("Cache-Tag") == "photos,landscape" && first.header("x-amz-meta-cache-tag") == "photos,landscape")
            #expect(try await server.get("/info/_/cb:two/plain/\(source)").status == .ok)
            #expect(origin.requests("/landscape.jpg") == 1, "the source kept: cache busters do not change it")
            #expect(try await server.get("/info/_/bc:1/plain/\(source)").status == .ok)
            #expect(origin.requests("/landscape.jpg") == 2, "bc fetched the source again")
            let small = try await server.get("/info/_/msfs:100/plain/\(source)")
            #expect((400...499).contains(Int(small.status.code)), "\(small.status)")
        }
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.infoPresets = ["fresh": "bc:1"] }) { server, origin in
            let refused = try await server.get("/info/_/bc:1/plain/\(origin.url("/landscape.jpg").absoluteString)")
            #expect(refused.status == .notFound && String(decoding: refused.body, as: UTF8.self).contains("bypasses the cache"))
            // An operator's info preset may bypass where a URL may not.
            let preset = try await server.get("/info/_/pr:fresh/plain/\(origin.url("/landscape.jpg").absoluteString)")
            #expect(preset.status == .ok, "\(String(decoding: preset.body, as: UTF8.self))")
        }
    }

    /// `cl` is read; asking for classes is refused, as no classifier runs here.
    @Test func infoRefusesClassesWithoutAClassifier() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            #expect(try await client.execute(uri: "/info/_/cl:0/plain/local:///landscape.jpg", method: .get).status == .ok)
            let refused = try await client.execute(uri: "/info/_/cl:5/plain/local:///landscape.jpg", method: .get)
            #expect(refused.status == .notFound && String(buffer: refused.body).contains("classifier"), "\(String(buffer: refused.body))")
        }
    }

    /// imgproxy's IMGPROXY_SKIP_PROCESSING_FORMATS (a URL's skp over it) and
    /// IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION, as server settings.
    @Test func theServersSkipAndFrameLimits() async throws {
        let jpeg = try Fixtures.data("landscape.jpg")
        try await withRouter({ $0.localRoot = Fixtures.folder; $0.encoder.skipProcessing = [.jpeg] }) { client in
            let passed = try await client.execute(uri: "/img/_/rs:fit:10:10/plain/local:///landscape.jpg@jpg", method: .get)
            #expect(passed.status == .ok && Data(buffer: passed.body) == jpeg, "answered as it came")
            let processed = try await client.execute(uri: "/img/_/rs:fit:10:10/skp:/plain/local:///landscape.jpg@jpg", method: .get)
            #expect(processed.status == .ok && Data(buffer: processed.body) != jpeg, "the URL's empty skp processes it")
        }
        try await withRouter({ $0.localRoot = Fixtures.folder; $0.limits.maxAnimationFramePixels = 1_000 }) { client in
            let refused = try await client.execute(uri: "/img/_/plain/local:///animated.gif@gif", method: .get)
            #expect(refused.status == .unprocessableContent && String(buffer: refused.body).contains("a frame"), "\(String(buffer: refused.body))")
        }
    }

    /// imgproxy's IMGPROXY_ALLOWED_INFO_OPTIONS: other info options refused
    /// in the URL (pr too, unless listed, as for image URLs), presets still
    /// free to name them.
    @Test func onlyTheAllowedInfoOptions() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder; $0.allowedInfoOptions = ["avg", "cb", "pr"]; $0.infoPresets = ["colours": "p:8"] }) { client in
            #expect(try await client.execute(uri: "/info/_/avg:1/cb:2/plain/local:///landscape.jpg", method: .get).status == .ok)
            for option in ["p:8", "vts:1", "size:0"] {
                let refused = try await client.execute(uri: "/info/_/\(option)/plain/local:///landscape.jpg", method: .get)
                #expect(refused.status == .notFound && String(buffer: refused.body).contains("not allowed"), "\(option)")
            }
            let preset = try await client.execute(uri: "/info/_/pr:colours/plain/local:///landscape.jpg", method: .get)
            #expect(preset.status == .ok && String(buffer: preset.body).contains("palette"), "\(String(buffer: preset.body))")
        }
    }
}
