import Foundation
import Testing
@testable import Darkroom

/// What the sanitiser bounds before librsvg draws: filter primitives by
/// what their attributes make them cost, and `data:` images by the
/// limits a source of their own would meet.
struct SVGDrawingBoundsTests {
    func sanitized(_ body: String, limits: SVGSanitizer.EmbeddedImageLimits = .init(.default)) throws -> String {
        let document = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">"# + body + "</svg>"
        return String(decoding: try SVGSanitizer.sanitized(Data(document.utf8), maxBytes: 1 << 24, embedded: limits), as: UTF8.self)
    }

    /// A PNG's signature and header chunk: all the sanitiser reads.
    func pngHeader(width: UInt32, height: UInt32) -> Data {
        var data = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) + Data("IHDR".utf8)
        for value in [width, height] { withUnsafeBytes(of: value.bigEndian) { data.append(contentsOf: $0) } }
        return data + Data([8, 6, 0, 0, 0, 0, 0, 0, 0])
    }

    func image(_ png: Data) -> String {
        #"<image width="10" height="10" xlink:href="data:image/png;base64,"# + png.base64EncodedString() + #""/>"#
    }

    @Test func filterCostsAreCutToTheirBounds() throws {
        let out = try sanitized(#"<filter id="f"><feTurbulence numOctaves="2000000000"/><feMorphology radius="5000 3"/>"#
            + #"<feConvolveMatrix order="300" kernelMatrix="1"/><feConvolveMatrix order="3" kernelMatrix="0 0 0 0 1 0 0 0 0"/></filter>"#)
        #expect(out.contains(#"numOctaves="10""#), "\(out)")
        #expect(out.contains(#"radius="64.0 3.0""#), "\(out)")
        #expect(!out.contains(#"order="300""#) && out.contains(#"order="3""#), "\(out)")
        // Within the bounds, as written.
        let kept = try sanitized(#"<filter id="f"><feTurbulence numOctaves="4"/><feMorphology radius="2"/></filter>"#)
        #expect(kept.contains(#"numOctaves="4""#) && kept.contains(#"radius="2""#), "\(kept)")
    }

    @Test func anEmbeddedImageOverThePixelLimitIsDropped() throws {
        let out = try sanitized(image(pngHeader(width: 10_000, height: 10_000)))
        #expect(out.contains("<image") && !out.contains("data:"), "\(out.prefix(300))")
        let small = try sanitized(image(pngHeader(width: 100, height: 100)))
        #expect(small.contains("data:image/png;base64,"))
    }

    /// Each image fits on its own; together they pass the budget, and the
    /// ones past it are dropped, however they are spelled (an href, a CSS
    /// url() in a style attribute or a style sheet).
    @Test func embeddedImagesTogetherAreHeldToTheBudget() throws {
        let limits = SVGSanitizer.EmbeddedImageLimits(maxPixels: 50_000_000, maxJPEGScans: 100, maxFrames: 100, maxMemory: 256 << 20)
        let png = pngHeader(width: 5000, height: 5000).base64EncodedString()
        let spellings = [
            image(pngHeader(width: 5000, height: 5000)),
            #"<rect style="fill: url('data:image/png;base64,"# + png + #"')"/>"#,
            #"<style>rect { fill: url(data:image/png;base64,"# + png + #") }</style>"#,
        ]
        let out = try sanitized(spellings.joined(), limits: limits)
        // 100 MB each at four bytes a pixel: two fit 256 MiB, the third not.
        #expect(out.components(separatedBy: "data:image/png").count - 1 == 2, "\(out.prefix(400))")
    }

    @Test func embeddedImagesWhoseHeaderCannotBeReadAreDropped() throws {
        let out = try sanitized(#"<image xlink:href="data:image/png;base64,AAAA"/><image xlink:href="data:image/jpeg;base64,/9j/"/>"#)
        #expect(!out.contains("data:"), "\(out)")
    }
}
