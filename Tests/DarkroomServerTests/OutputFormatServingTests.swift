import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// The formats and encoder options of imgproxy's URLs, as a client sees
/// them: the Content-Type imgproxy sends, and files as the options say.
struct OutputFormatServingTests {
    @Test func heicBMPAndICOAreAnsweredAsImgproxyAnswersThem() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { _ in }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            for (ext, type) in [("heic", "image/heif"), ("bmp", "image/bmp"), ("ico", "image/x-icon")] {
                let answer = try await server.get("/_/w:64/plain/\(source)@\(ext)")
                #expect(answer.status == .ok, "\(ext): \(String(decoding: answer.body, as: UTF8.self))")
                #expect(answer.header("Content-Type") == type)
                #expect(answer.header("Content-Disposition")?.contains("landscape.\(ext)") == true, "\(answer.header("Content-Disposition") ?? "")")
            }
            let icon = try await server.get("/_/rs:fit:1000:1000:1/plain/\(source)@ico")
            let decoded = try PillowDecoder.decode(icon.body)
            #expect(decoded.format == "ICO" && max(decoded.width, decoded.height) == 256, "an icon fits its format's 256 pixels")
            // imgproxy's name for HEIC output is heic; PDF it does not write.
            #expect(try await server.get("/_/w:64/plain/\(source)@pdf").status.code == 422)
        }
    }

    @Test func encoderOptionsOfImgproxyProURLs() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { _ in }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let plain = try await server.get("/_/w:128/plain/\(source)@png")
            let palette = try await server.get("/_/w:128/pngo:1:1:16/plain/\(source)@png")
            #expect(palette.status == .ok && plain.status == .ok)
            #expect([UInt8](palette.body)[25] == 3 && [UInt8](palette.body)[24] == 4 && [UInt8](palette.body)[28] == 1,
                    "an interlaced PNG of 16 colours")
            #expect([UInt8](plain.body)[25] != 3, "the cache keeps each answer apart")
            #expect(palette.header("ETag") != plain.header("ETag"))

            let lossless = try await server.get("/_/w:128/webpo:lossless/plain/\(source)@webp")
            #expect(String(decoding: lossless.body.prefix(64).map { $0 < 0x20 ? 0x2E : $0 }, as: UTF8.self).contains("VP8L"))
            let fullChroma = try await server.get("/_/w:128/jpgo::1/plain/\(source)@jpg")
            #expect(JPEGMarkers(fullChroma.body).lumaSampling == "1x1")
            let progressive = try await server.get("/_/w:128/jpeg_options:1/plain/\(source)@jpg")
            #expect(JPEGMarkers(progressive.body).isBaseline == false)

            // Bad arguments are imgproxy's bad URL: 404, saying what was wrong.
            for bad in ["pngo:1:1:1", "pngo:1:1:257", "webpo:lossier", "webpo::1:sketch", "avifo:444", "jpgo:1:1:1:1:1:9", "jpgo:1:1:1:1:1:1:1"] {
                let answer = try await server.get("/_/w:128/\(bad)/plain/\(source)@jpg")
                #expect(answer.status == .notFound, "\(bad)")
                #expect(String(decoding: answer.body, as: UTF8.self).contains(String(bad.prefix { $0 != ":" })), "\(bad): \(String(decoding: answer.body, as: UTF8.self))")
            }
        }
    }

    /// The bit depth of the PNG answer to `path`, from its IHDR.
    func bitDepth(_ server: RoutedServer, _ path: String) async throws -> UInt8 {
        [UInt8](try await server.get(path).body)[24]
    }

    @Test func preserveHDRAsImgproxyReadsIt() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { _ in }) { server, origin async throws in
            let source = origin.url("/sixteen-bit.png").absoluteString
            #expect(try await bitDepth(server, "/_/w:100/plain/\(source)@png") == 8)
            #expect(try await bitDepth(server, "/_/w:100/ph:1/plain/\(source)@png") == 16)
            #expect(try await bitDepth(server, "/_/w:100/preserve_hdr:true/plain/\(source)@png") == 16)
        }
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.encoder.preserveHDR = true }) { server, origin async throws in
            let source = origin.url("/sixteen-bit.png").absoluteString
            #expect(try await bitDepth(server, "/_/w:100/plain/\(source)@png") == 16)
            #expect(try await bitDepth(server, "/_/w:100/ph:0/plain/\(source)@png") == 8, "the URL over the server")
        }
    }
}
