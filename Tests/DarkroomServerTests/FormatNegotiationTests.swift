import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import TestSupport

/// The answer's format is always one the client takes, or the one the URL
/// names, whatever format the origin sent.
struct FormatNegotiationTests {
    @Test(arguments: [
        // (Accept, AVIF wanted, WebP wanted, taken formats)
        ("image/avif,image/webp,*/*", "avif", "jpeg+png+webp+avif"),
        ("image/avif;q=0, image/webp", "webp", "webp"),
        ("image/avif;q=0, image/webp, */*;q=0.5", "webp", "jpeg+png+webp"),
        ("image/jpeg", "-", "jpeg"),
        ("image/*", "-", "jpeg+png+webp+avif"),
        ("image/*, image/avif;q=0", "-", "jpeg+png+webp"),
        ("image/webp;q=abc, image/png", "-", "png"),
        ("image/webp;q=1e300, image/png", "-", "png"),
        ("image/webp;q=-1, image/png", "-", "png"),
        ("text/html", "-", "*"),
        ("", "-", "*"),
        (",;,;q=", "-", "*"),
    ])
    func acceptHeadersAreReadWithTheirQValues(accept: String, preferred: String, taken: String) {
        let formats = AcceptedFormats(accept)
        #expect(formats.preferred?.rawValue ?? "-" == preferred)
        #expect(formats.key == "\(preferred)/\(taken)")
    }

    @Test func anAVIFOrWebPSourceIsAnsweredInAFormatTheClientTakes() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder) { server, origin in
            for source in ["landscape.avif", "landscape.webp"] {
                let path = "/img/_/w:100/plain/\(origin.url("/\(source)").absoluteString)"
                let jpegOnly = try await server.get(path, headers: [("Accept", "image/jpeg")])
                #expect(jpegOnly.status == .ok)
                #expect(jpegOnly.header("Content-Type") == "image/jpeg", "\(source) for Accept: image/jpeg")
                #expect(ImageFormat.sniff(jpegOnly.body) == .image(.jpeg))
                #expect(jpegOnly.header("Vary") == "Accept")

                let refusesAVIF = try await server.get(path, headers: [("Accept", "image/avif;q=0, image/webp")])
                #expect(refusesAVIF.header("Content-Type") == "image/webp", "\(source) for AVIF refused")

                let pngOnly = try await server.get(path, headers: [("Accept", "image/png")])
                #expect(pngOnly.header("Content-Type") == "image/png")

                // Anything goes: the source's own format is kept.
                let any = try await server.get(path, headers: [("Accept", "*/*")])
                #expect(any.header("Content-Type") == (source.hasSuffix("avif") ? "image/avif" : "image/webp"))

                // The URL's format wins over Accept.
                let named = try await server.get(path + "@avif", headers: [("Accept", "image/jpeg")])
                #expect(named.header("Content-Type") == "image/avif")
            }
        }
    }

    @Test func theOriginIsAskedWithTheSameClassicAcceptForEveryClient() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder) { server, origin in
            _ = try await server.get("/img/_/w:90/plain/\(origin.url("/landscape.jpg").absoluteString)",
                                     headers: [("Accept", "image/avif,image/webp,*/*")])
            let asked = try #require(origin.lastHeaders("/landscape.jpg")?["accept"])
            #expect(asked == DataLoader.accept)
            #expect(!asked.contains("avif") && !asked.contains("webp"))
        }
    }
}
