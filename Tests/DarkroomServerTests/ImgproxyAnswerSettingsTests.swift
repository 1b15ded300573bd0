import Darkroom
@testable import DarkroomServer
import Foundation
import ServerTestSupport
import Testing
import TestSupport

/// The server settings an imgproxy deployment sets to shape answers, each
/// as imgproxy's configuration page describes it: preferred formats, debug
/// fields, the canonical link, attachments, embedded thumbnails, and
/// watermark and fallback URLs completed as sources are.
struct ImgproxyAnswerSettingsTests {
    static func base64URL(_ text: String) -> String { ProOptionsServingTests.base64URL(text) }

    /// `IMGPROXY_PREFERRED_FORMATS`: the source's format when listed, else
    /// the first listed that animates (for an animation) or carries alpha
    /// (for alpha), whatever the client's Accept says.
    @Test func preferredFormatsChooseTheAnswersFormat() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { c in
            c.preferredFormats = [.jpeg, .png, .gif]
        }) { server, origin in
            for (file, expected, accept) in [
                ("landscape.webp", "image/jpeg", nil), ("landscape.jpg", "image/jpeg", nil),
                // Accept plays no part (no format is negotiated here).
                ("landscape.webp", "image/jpeg", "image/png"),
                ("alpha.png", "image/png", nil), ("landscape.tif", "image/jpeg", nil),
                // An animation: the first listed that animates.
                ("animated.webp", "image/gif", nil),
            ] as [(String, String, String?)] {
                let answer = try await server.get("/_/rs:fit:64:64/plain/\(origin.url("/\(file)").absoluteString)",
                                                  headers: accept.map { [("Accept", $0)] } ?? [])
                #expect(answer.status == .ok && answer.header("Content-Type") == expected,
                        "\(file): \(answer.header("Content-Type") ?? "") \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
            let animated = try await server.get("/_/plain/\(origin.url("/animated.webp").absoluteString)")
            // Each frame of a GIF has its graphic control block (21 F9 04).
            let frames = animated.body.indices.dropLast(2).filter { animated.body[$0] == 0x21 && animated.body[$0 + 1] == 0xF9 && animated.body[$0 + 2] == 0x04 }
            #expect(animated.header("Content-Type") == "image/gif" && frames.count > 1, "the GIF keeps the frames: \(frames.count)")
            // A format in the URL wins.
            let named = try await server.get("/_/rs:fit:64:64/plain/\(origin.url("/landscape.webp").absoluteString)@webp")
            #expect(named.header("Content-Type") == "image/webp")
        }
        // Alpha: the first listed that carries it.
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.preferredFormats = [.jpeg, .webp] }) { server, origin in
            let answer = try await server.get("/_/rs:fit:64:64/plain/\(origin.url("/alpha.png").absoluteString)")
            #expect(answer.header("Content-Type") == "image/webp")
        }
        // Unset: Darkroom's rule keeps a WebP source as WebP.
        try await RoutedServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let answer = try await server.get("/_/rs:fit:64:64/plain/\(origin.url("/landscape.webp").absoluteString)")
            #expect(answer.header("Content-Type") == "image/webp")
        }
    }

    /// `IMGPROXY_ENABLE_DEBUG_HEADERS`: the source's length and size and the
    /// answer's size, on a miss and on a hit alike; none unless set.
    @Test func debugFieldsDescribeSourceAndAnswer() async throws {
        let length = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Aqua.jpg")).count
        try await RoutedServer.with({ $0.debugHeaders = true }) { server in
            for _ in 0..<2 {
                let answer = try await server.get("/_/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@png")
                #expect(answer.status == .ok)
                #expect(answer.header("X-Origin-Content-Length") == String(length))
                #expect(answer.header("X-Origin-Width") == "1600" && answer.header("X-Origin-Height") == "1000")
                #expect(answer.header("X-Result-Width") == "64" && answer.header("X-Result-Height") == "40")
            }
        }
        try await RoutedServer.with { server in
            let answer = try await server.get("/_/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@png")
            #expect(answer.status == .ok && answer.header("X-Origin-Width") == nil && answer.header("X-Result-Width") == nil)
        }
        // Through the front door: the second answer is a memory hit made
        // on the event loop, and carries them too.
        let server = try await TestServer.start { $0.debugHeaders = true }
        try await cleaningUp({ await server.stop() }) {
            for round in 0..<3 {
                let answer = try await server.get("/img/_/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@png")
                #expect(answer.status == .ok && answer.header("X-Origin-Content-Length") == String(length), "round \(round)")
                #expect(answer.header("X-Result-Width") == "64" && answer.header("X-Origin-Height") == "1000", "round \(round)")
            }
        }
    }

    /// `IMGPROXY_SET_CANONICAL_HEADER`: a canonical link to an http(s)
    /// source; none for other schemes.
    @Test func theCanonicalLinkNamesAnHTTPSource() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.canonicalHeader = true }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let answer = try await server.get("/_/rs:fit:64:64/plain/\(source)")
            #expect(answer.status == .ok && answer.header("Link") == "<\(source)>; rel=\"canonical\"")
            let local = try await server.get("/_/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)")
            #expect(local.status == .ok && local.header("Link") == nil)
            // A stranger's line break in the source stays inside the link, escaped.
            for query in ["a=%0D%0AX-Injected:%201", "a=%250D%250AX-Injected:%25201"] {
                let hostile = try await server.get("/_/rs:fit:64:64/plain/\(source)?\(query)")
                #expect(hostile.status == .ok && hostile.header("X-Injected") == nil, "\(query): \(hostile.status)")
                let link = hostile.header("Link") ?? ""
                #expect(link.hasPrefix("<http://") && !link.contains("\r") && !link.contains("\n"), "\(query): \(link)")
            }
        }
        try await RoutedServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let answer = try await server.get("/_/rs:fit:64:64/plain/\(origin.url("/landscape.jpg").absoluteString)")
            #expect(answer.status == .ok && answer.header("Link") == nil)
        }
    }

    /// `IMGPROXY_RETURN_ATTACHMENT`: attachments unless the URL's `att:0`.
    @Test func answersAreAttachmentsUnlessTheURLSaysNot() async throws {
        try await RoutedServer.with({ $0.returnAttachment = true }) { server in
            let attached = try await server.get("/_/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)")
            #expect(attached.header("Content-Disposition")?.hasPrefix("attachment;") == true, "\(attached.header("Content-Disposition") ?? "")")
            let inline = try await server.get("/_/rs:fit:64:64/att:0/plain/\(ProOptionsServingTests.photo)")
            #expect(inline.header("Content-Disposition")?.hasPrefix("inline;") == true, "\(inline.header("Content-Disposition") ?? "")")
        }
    }

    /// `IMGPROXY_ENFORCE_THUMBNAIL`: an AVIF with an embedded thumbnail is
    /// read by it, as a URL's `eth:1` asks; `eth:0` reads the image.
    @Test func embeddedThumbnailsAreReadWhenTheServerSays() async throws {
        @Sendable func size(_ answer: RoutedServer.Answer) throws -> String {
            let size = try ImageSize.of(answer.body)
            return "\(size.width)x\(size.height)"
        }
        try await RoutedServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let source = origin.url("/thumbnail.avif").absoluteString
            let thumb = try size(try await server.get("/_/eth:1/plain/\(source)@png"))
            let whole = try size(try await server.get("/_/plain/\(source)@png"))
            #expect(thumb != whole, "\(thumb) \(whole)")
            try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.enforceThumbnail = true }) { enforcing, origin in
                let source = origin.url("/thumbnail.avif").absoluteString
                let enforced = try size(try await enforcing.get("/_/plain/\(source)@png"))
                let refused = try size(try await enforcing.get("/_/eth:0/plain/\(source)@png"))
                #expect(enforced == thumb && refused == whole, "\(enforced) \(refused)")
            }
        }
    }

    /// Pro's `IMGPROXY_WATERMARK_PREPROCESS_URL` and
    /// `IMGPROXY_FALLBACK_IMAGE_PREPROCESS_URL`: `wmu` and `fiu` completed
    /// by the base URL as sources are; without them a relative one is
    /// refused, naming the setting.
    @Test func watermarkAndFallbackURLsAreCompletedAsSources() async throws {
        let mark = Self.base64URL("Dune.jpg"), full = Self.base64URL("local:///photos/Dune.jpg")
        try await RoutedServer.with({
            $0.sourceRules.baseURL = "local:///photos/"
            $0.sourceRules.rewritesWatermarkURLs = true
            $0.sourceRules.rewritesFallbackURLs = true
        }) { server in
            let relative = try await server.get("/_/rs:fit:64:64/wm:1:soea:0:0:0.33/wmu:\(mark)/plain/Aqua.jpg@png")
            let absolute = try await server.get("/_/rs:fit:64:64/wm:1:soea:0:0:0.33/wmu:\(full)/plain/Aqua.jpg@png")
            let plain = try await server.get("/_/rs:fit:64:64/plain/Aqua.jpg@png")
            #expect(relative.status == .ok && relative.body == absolute.body, "\(String(decoding: relative.body.prefix(200), as: UTF8.self))")
            #expect(relative.body != plain.body)
            let fallback = try await server.get("/_/rs:fit:64:64/fiu:\(mark)/plain/missing.jpg@png")
            let dune = try await server.get("/_/rs:fit:64:64/plain/Dune.jpg@png")
            #expect(fallback.status == .ok && fallback.body == dune.body)
        }
        try await RoutedServer.with({ $0.sourceRules.baseURL = "local:///photos/" }) { server in
            let answer = try await server.get("/_/rs:fit:64:64/wm:1/wmu:\(mark)/plain/Aqua.jpg@png")
            #expect(answer.status == .notFound && String(decoding: answer.body, as: UTF8.self).contains("IMGPROXY_WATERMARK_PREPROCESS_URL"),
                    "\(String(decoding: answer.body, as: UTF8.self))")
            let fallback = try await server.get("/_/fiu:\(mark)/plain/Aqua.jpg@png")
            #expect(fallback.status == .notFound && String(decoding: fallback.body, as: UTF8.self).contains("IMGPROXY_FALLBACK_IMAGE_PREPROCESS_URL"))
        }
    }
}
