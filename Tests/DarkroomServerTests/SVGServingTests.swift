import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// SVG sources as imgproxy answers them: asked without a format, the
/// document itself, sanitised; asked for pixels, drawn by librsvg where the
/// server allows it; SVG never drawn from another source's pixels.
struct SVGServingTests {
    /// The drawing child, as `darkroom serve` names it.
    static let drawing = SVGDrawing(command: [DarkroomProcess.binary.path, "render-svg"])

    static let hostile = #"""
    <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="80" onload="alert(1)">
    <script>alert(2)</script><foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
    <defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient></defs>
    <rect width="120" height="80" fill="url(#g)" onclick="alert(3)"/><a xlink:href="javascript:alert(4)"><circle r="5"/></a>
    <image href="file:///etc/passwd" width="10" height="10"/><use xlink:href="http://127.0.0.1:9/x.svg#a"/>
    </svg>
    """#

    static func origin() throws -> URL {
        let folder = try Fixtures.temporaryFolder("svg-origin")
        try Data(hostile.utf8).write(to: folder.appendingPathComponent("hostile.svg"))
        try Data(try Fixtures.data("landscape.jpg")).write(to: folder.appendingPathComponent("photo.jpg"))
        return folder
    }

    @Test func anSVGAskedWithoutAFormatIsItselfSanitised() async throws {
        try await RoutedServer.withOrigin(serving: try Self.origin()) { server, origin in
            let source = origin.url("/hostile.svg").absoluteString
            // Even where the client takes AVIF: imgproxy answers the SVG.
            let answer = try await server.get("/_/rs:fit:60:60/plain/\(source)", headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(answer.status == .ok)
            #expect(answer.header("Content-Type") == "image/svg+xml")
            let text = String(decoding: answer.body, as: UTF8.self)
            for removed in ["<script", "alert", "foreignObject", "onload", "onclick", "javascript:", "file:", "127.0.0.1"] {
                #expect(!text.contains(removed), "\(removed) was removed: \(text)")
            }
            for kept in ["<rect", "url(#g)", "<linearGradient", "<circle", #"width="120""#] {
                #expect(text.contains(kept), "\(kept) was kept: \(text)")
            }
            #expect(try await server.get("/_/plain/\(source)@svg").header("Content-Type") == "image/svg+xml")
            // Pixels are asked for by name: a server with no drawing child refuses them.
            let png = try await server.get("/_/w:60/plain/\(source)@png")
            #expect(png.status.code == 422 && String(decoding: png.body, as: UTF8.self).contains("--no-svg-render"))
            // SVG is not drawn from pixels.
            let fromJPEG = try await server.get("/_/plain/\(origin.url("/photo.jpg").absoluteString)@svg")
            #expect(fromJPEG.status.code == 422, "\(String(decoding: fromJPEG.body, as: UTF8.self))")
        }
    }

    @Test func drawnAtTheSizeAskedWhereRenderingIsOn() async throws {
        try await RoutedServer.withOrigin(serving: try Self.origin(), { $0.limits.svgDrawing = Self.drawing }) { server, origin in
            let source = origin.url("/hostile.svg").absoluteString
            let small = try await server.get("/_/rs:fit:60:60/plain/\(source)@png")
            #expect(small.status == .ok && small.header("Content-Type") == "image/png")
            #expect(try ImageSize.of(small.body) == (60, 40))
            // A vector is drawn larger without `el`, as imgproxy draws it.
            let large = try await server.get("/_/rs:fit:480:480/plain/\(source)@png")
            #expect(try ImageSize.of(large.body) == (480, 320))
            let pixel = try PillowDecoder.decode(large.body, points: [(240, 160)]).pixels[0]
            #expect(pixel[0] > 200 && pixel[1] < 60 && pixel[2] < 60, "the gradient's red, drawn: \(pixel)")
            // Larger than the source byte limit as uncompressed pixels: drawn.
            let big = try await server.get("/_/rs:fit:4000:4000/plain/\(source)@jpg")
            #expect(big.status == .ok)
            let bigSize = try ImageSize.of(big.body)
            #expect(bigSize == (4000, 2667), "\(bigSize)")
            // /info says what the document is, with placeholders from its drawing.
            let info = try await server.get("/info/_/plain/\(source)")
            let fields = try #require(try JSONSerialization.jsonObject(with: info.body) as? [String: Any], "\(String(decoding: info.body, as: UTF8.self))")
            #expect(fields["format"] as? String == "svg" && fields["width"] as? Int == 120 && fields["height"] as? Int == 80)
            #expect((fields["thumbhash"] as? String)?.isEmpty == false)
        }
        // IMGPROXY_ALWAYS_RASTERIZE_SVG: without a format too.
        try await RoutedServer.withOrigin(serving: try Self.origin(), {
            $0.limits.svgDrawing = Self.drawing
            $0.alwaysRasterizeSVG = true
        }) { server, origin in
            let answer = try await server.get("/_/w:60/plain/\(origin.url("/hostile.svg").absoluteString)", headers: [("Accept", "image/webp")])
            #expect(answer.status == .ok && answer.header("Content-Type") == "image/webp")
        }
    }

    @Test func sanitisingCanBeTurnedOffAsInImgproxy() async throws {
        try await RoutedServer.withOrigin(serving: try Self.origin(), { $0.limits.sanitizesSVG = false }) { server, origin in
            let answer = try await server.get("/_/plain/\(origin.url("/hostile.svg").absoluteString)")
            #expect(answer.status == .ok && String(decoding: answer.body, as: UTF8.self) == Self.hostile)
        }
    }
}
