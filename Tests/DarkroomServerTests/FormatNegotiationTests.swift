import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import TestSupport

/// The answer's format is always one the client takes, or the one the URL
/// names, whatever format the origin sent.
struct FormatNegotiationTests {
    @Test(arguments: [
        // (Accept, the negotiable formats named, taken formats)
        ("image/avif,image/webp,*/*", "avif+webp", "jpeg+png+webp+avif"),
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
    func acceptHeadersAreReadWithTheirQValues(accept: String, named: String, taken: String) {
        let formats = AcceptedFormats(accept)
        #expect(formats.key == "\(named)/\(taken)")
    }

    /// imgproxy's switches: AUTO_* choose a format for a URL that names
    /// none, ENFORCE_* even for one that names another; JPEG XL before AVIF
    /// before WebP; a format the client does not name is never chosen.
    @Test func theSwitchesDecideWhatAcceptChooses() {
        let both = AcceptedFormats("image/avif,image/webp,image/jxl,*/*")
        let webpOnly = AcceptedFormats("image/webp,*/*")
        func answer(_ asked: String?, _ accept: AcceptedFormats, _ negotiation: FormatNegotiation) -> String {
            guard case .success(let (format, _)) = ImageRoutes.format(asked: asked, accept: accept, negotiation: negotiation) else { return "error" }
            return format?.rawValue ?? "source"
        }
        #expect(answer(nil, both, FormatNegotiation()) == "avif", "Darkroom's default: AVIF, then WebP")
        #expect(answer(nil, both, FormatNegotiation(automatic: [.webp])) == "webp", "IMGPROXY_AUTO_AVIF=false")
        #expect(answer(nil, both, FormatNegotiation(automatic: [])) == "source", "neither: the source's format")
        #expect(answer(nil, both, FormatNegotiation(automatic: [.jxl, .avif, .webp])) == "jxl")
        #expect(answer(nil, webpOnly, FormatNegotiation(automatic: [.avif])) == "source", "never a format the client does not name")
        #expect(answer("png", both, FormatNegotiation()) == "png", "a named format stands")
        #expect(answer("png", both, FormatNegotiation(automatic: [], enforced: [.webp])) == "webp", "IMGPROXY_ENFORCE_WEBP")
        #expect(answer("png", AcceptedFormats("image/png"), FormatNegotiation(enforced: [.webp])) == "png")
        #expect(answer("svg", both, FormatNegotiation(enforced: [.webp])) == "svg", "SVG asked stays SVG")
    }

    /// Through the server: with IMGPROXY_AUTO_AVIF=false a browser that
    /// takes AVIF and WebP gets WebP; with ENFORCE_WEBP, a URL that names
    /// PNG does too.
    @Test func theServersSwitchesChooseTheAnswer() async throws {
        let chrome = [("Accept", "image/avif,image/webp,image/apng,image/*,*/*;q=0.8")]
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.negotiation = FormatNegotiation(automatic: [.webp], enforced: []) }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let chosen = try await server.get("/img/_/w:100/plain/\(source)", headers: chrome)
            let named = try await server.get("/img/_/w:100/plain/\(source)@png", headers: chrome)
            #expect(chosen.header("Content-Type") == "image/webp" && named.header("Content-Type") == "image/png")
        }
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.negotiation = FormatNegotiation(automatic: [], enforced: [.webp]) }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            let enforced = try await server.get("/img/_/w:100/plain/\(source)@png", headers: chrome)
            let pngOnly = try await server.get("/img/_/w:100/plain/\(source)@png", headers: [("Accept", "image/png")])
            #expect(enforced.header("Content-Type") == "image/webp" && enforced.header("Vary") == "Accept")
            #expect(pngOnly.header("Content-Type") == "image/png")
        }
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
