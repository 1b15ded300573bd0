import Darkroom
import DarkroomImaging
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Testing
import TestSupport

/// The routes, driven through Hummingbird's router test client: no socket,
/// no port; the pipeline is real and reads the bundled samples in process.
@Suite(.offCooperativePool) struct RouterTests {
    private static func text(_ response: TestResponse) -> String { String(buffer: response.body) }

    @Test func aSampleIsProcessedInProcess() async throws {
        try await withRouter { client in
            let response = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(response.status == .ok, "\(Self.text(response))")
            #expect(response.headers[.contentType] == "image/png")
            #expect(response.headers[.eTag] != nil)
            // A PNG's width: bytes 16...19 of its header, big-endian.
            let png = Array(Data(buffer: response.body))
            #expect(png.count > 24 && png[16...19].reduce(0) { $0 << 8 | Int($1) } == 64)
            // The same URL again: a memory hit with the same validator.
            let again = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@png", method: .get,
                                                 headers: [.ifNoneMatch: response.headers[.eTag] ?? ""])
            #expect(again.status == .notModified)
        }
    }

    @Test(arguments: [
        ("/img/_/w:abc/plain/local:///photos/Aqua.jpg", HTTPResponse.Status.notFound, "width 'abc'"),
        ("/img/_/w:64/plain/local:///photos/DoesNotExist.jpg", .notFound, "does not exist"),
        ("/img/_/w:64/plain/local:///photos/README.md", .unprocessableContent, "not an image"),
        ("/img/_/w:64/plain/local:///../Package.swift", .notFound, "does not exist in the local source folder"),
        ("/img/_/w:64/plain/http://127.0.0.1:1/a.jpg", .notFound, "private"),
        ("/img/_/w:64/plain/local:///photos/Aqua.jpg@svg", .unprocessableContent, "SVG is answered only for SVG sources"),
    ])
    func badRequestsGetTheirOwnStatusAndReason(uri: String, status: HTTPResponse.Status, reason: String) async throws {
        try await withRouter { client in
            let response = try await client.execute(uri: uri, method: .get)
            #expect(response.status == status, "\(uri): \(Self.text(response))")
            #expect(Self.text(response).contains(reason), "\(uri): \(Self.text(response))")
            #expect(response.headers[.cacheControl] == "no-store")
        }
    }

    /// imgproxy's URLs at the root (its default) beside the server's own
    /// routes, which win; under the path prefix when one is set; under
    /// /img/ always. A signature covers the URL after the prefix.
    @Test func imageURLsAtTheRootBesideTheServersOwnRoutes() async throws {
        let url = "/rs:fit:64:64/plain/local:///photos/Aqua.jpg@png"
        @Sendable func isThumbnail(_ response: TestResponse) throws -> Bool {
            guard response.status == .ok else { return false }
            return try ImageSize.of(Data(buffer: response.body)).width == 64
        }
        try await withRouter { client in
            for uri in ["/_\(url)", "/unsafe\(url)", "/img/_\(url)"] {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(try isThumbnail(response), "\(uri): \(response.status) \(Self.text(response))")
            }
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
            let info = try await client.execute(uri: "/info/_/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(info.headers[.contentType] == "application/json", "/info is the info route's")
            #expect(try await client.execute(uri: "/api/list", method: .get).headers[.contentType]?.contains("json") == true)
            #expect(try await client.execute(uri: "/", method: .get).headers[.contentType]?.contains("text/html") == true)
            // Any other path is read as an image URL, and refused as one.
            let other = try await client.execute(uri: "/robots.txt", method: .get)
            #expect(other.status == .notFound && Self.text(other).contains("bad image URL"), "\(Self.text(other))")
        }
        let signer = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
        try await withRouter({ c in
            c.signatures = [signer]
            c.imagePaths = try! ImagePaths(prefix: "/images/v1")
        }) { client in
            #expect(try isThumbnail(try await client.execute(uri: "/images/v1/\(signer.sign(url))\(url)", method: .get)))
            #expect(try isThumbnail(try await client.execute(uri: "/img/\(signer.sign(url))\(url)", method: .get)))
            #expect(try await client.execute(uri: "/images/v1/_\(url)", method: .get).status == .forbidden)
            // With a prefix, the root is not an image URL's place.
            let root = try await client.execute(uri: "/\(signer.sign(url))\(url)", method: .get)
            #expect(root.status == .notFound && !Self.text(root).contains("bad image URL"), "\(Self.text(root))")
        }
    }

    @Test func signingRefusesUnsignedURLsBeforeAnyWork() async throws {
        try await withRouter({ $0.signature = try? URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F") }) { client in
            let response = try await client.execute(uri: "/img/_/w:64/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(response.status == .forbidden)
            // The first segment is the signature, whatever it looks like: an
            // option there is a wrong signature (imgproxy 4's 403).
            let optionFirst = try await client.execute(uri: "/img/rs:fill:9:9/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(optionFirst.status == .forbidden)
        }
        try await withRouter { client in
            // Without a key, imgproxy drops the first segment unread: the
            // image comes at its own size, not 9 x 9.
            let response = try await client.execute(uri: "/img/rs:fill:9:9/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(response.status == .ok)
            let size = try ImageSize.of(Data(buffer: response.body))
            #expect(size.width == 1600 && size.height == 1000, "\(size)")
        }
    }

    @Test func signaturesAreCheckedFirstByEveryPairAndSize() async throws {
        let old = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F", size: 16)
        let new = try URLSignature(hexKey: "6e6577", hexSalt: "73616c74", size: 16)
        try await withRouter({ $0.signatures = [new, old] }) { client in
            // Either pair of a rotation signs.
            for signer in [old, new] {
                let path = "/w:64/plain/local:///photos/Aqua.jpg"
                let response = try await client.execute(uri: "/img/\(signer.sign(path))\(path)", method: .get)
                #expect(response.status == .ok, "\(Self.text(response))")
            }
            // Unsigned, an unknown option or preset is not revealed: 403, not 404.
            for path in ["/_/vignette:2/plain/local:///photos/Aqua.jpg", "/_/pr:secret/plain/local:///photos/Aqua.jpg",
                         "/w:64/plain/local:///photos/Aqua.jpg"] {
                let response = try await client.execute(uri: "/img\(path)", method: .get)
                #expect(response.status == .forbidden, "\(path): \(Self.text(response))")
                #expect(!Self.text(response).contains("vignette") && !Self.text(response).contains("secret"))
            }
            // A full-length signature is not one of 16 bytes.
            let path = "/w:64/plain/local:///photos/Aqua.jpg"
            let long = try URLSignature(hexKey: "6e6577", hexSalt: "73616c74").sign(path)
            #expect(try await client.execute(uri: "/img/\(long)\(path)", method: .get).status == .forbidden)
        }
    }

    @Test func gifAndTIFFWhenAskedByName() async throws {
        try await withRouter { client in
            for (ext, type, loader) in [("gif", "image/gif", VImage.Loader.gif), ("tiff", "image/tiff", .tiff), ("tif", "image/tiff", .tiff)] {
                let response = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@\(ext)", method: .get)
                #expect(response.status == .ok && response.headers[.contentType] == type, "\(ext): \(Self.text(response))")
                let image = try RawPixels.decode(Array(buffer: response.body), loader: loader)
                #expect((image.width, image.height) == (64, 40), "\(ext)")
            }
        }
    }

    @Test func anAnimatedGIFStaysAnimatedForABrowser() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            // A browser's Accept: AVIF first, which cannot animate here, then WebP.
            let browser = try await client.execute(uri: "/img/_/rs:fit:60:60/plain/local:///animated.gif", method: .get,
                                                   headers: [.accept: "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"])
            #expect(browser.status == .ok, "\(Self.text(browser))")
            #expect(browser.headers[.contentType] == "image/webp")
            #expect(browser.headers[.vary] == "Accept")
            let webp = try RawPixels.decode(Array(buffer: browser.body), loader: .webp, pages: -1)
            #expect((webp.width, webp.height) == (60, 160), "four frames of 60 x 40")

            // No Accept: the source's format; a still format named: one frame.
            let plain = try await client.execute(uri: "/img/_/rs:fit:60:60/plain/local:///animated.gif", method: .get)
            #expect(plain.headers[.contentType] == "image/gif")
            let still = try await client.execute(uri: "/img/_/rs:fit:60:60/plain/local:///animated.gif@png", method: .get)
            #expect(still.headers[.contentType] == "image/png")
            let png = try RawPixels.decode(Array(buffer: still.body), loader: .png)
            #expect((png.width, png.height) == (60, 40))
        }
        try await withRouter({ $0.localRoot = Fixtures.folder; $0.limits.maxAnimationFrames = 1 }) { client in
            let one = try await client.execute(uri: "/img/_/rs:fit:60:60/plain/local:///animated.gif@gif", method: .get)
            #expect(one.status == .ok, "\(Self.text(one))")
            let gif = try RawPixels.decode(Array(buffer: one.body), loader: .gif, pages: -1)
            #expect((gif.width, gif.height) == (60, 40), "one frame only")
        }
    }

    @Test func jpegXLOnlyWithTheFlag() async throws {
        try await withRouter({ $0.localRoot = Fixtures.folder }) { client in
            let out = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///landscape.jpg@jxl", method: .get)
            #expect(out.status == .unprocessableContent && Self.text(out).contains("JPEG XL is off"), "\(out.status) \(Self.text(out))")
            let source = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///landscape.jxl@png", method: .get)
            #expect(source.status != .ok && Self.text(source).contains("JPEG XL is off"), "\(source.status) \(Self.text(source))")
        }
        try await withRouter({ $0.localRoot = Fixtures.folder; $0.limits.jpegXL = true }) { client in
            let out = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///landscape.jpg@jxl", method: .get)
            #expect(out.status == .ok && out.headers[.contentType] == "image/jxl", "\(Self.text(out))")
            let source = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///landscape.jxl@png", method: .get)
            #expect(source.status == .ok, "\(Self.text(source))")
            let png = try RawPixels.decode(Array(buffer: source.body), loader: .png)
            #expect((png.width, png.height) == (64, 43))
        }
    }

    /// Without an image of the server's, `wm` is no step, as imgproxy
    /// skips it: the answer is the image without a mark.
    @Test func aWatermarkWithoutTheServersImageIsSkipped() async throws {
        let path = "/img/_/rs:fit:64:64/wm:1:soea/plain/local:///photos/Aqua.jpg@png"
        try await withRouter { client in
            let response = try await client.execute(uri: path, method: .get)
            let unmarked = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(response.status == .ok && Array(buffer: response.body) == Array(buffer: unmarked.body), "\(Self.text(response))")
            // A text watermark needs no image of the server's.
            let text = try await client.execute(uri: "/img/_/rs:fit:64:64/wm:1:soea/wmt:RGFya3Jvb20/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(text.status == .ok, "\(Self.text(text))")
        }
        let mark = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Aqua.jpg"))
        try await withRouter({ $0.watermark = WatermarkImage(data: mark) }) { client in
            let marked = try await client.execute(uri: path, method: .get)
            #expect(marked.status == .ok, "\(Self.text(marked))")
            let plain = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(Array(buffer: marked.body) != Array(buffer: plain.body))
        }
    }

    @Test func aWatermarkFromAURLIsFetchedAsSourcesAre() async throws {
        try await withRouter { client in
            let plain = try await client.execute(uri: "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@png", method: .get)
            // Dune, a third of the width, at the bottom-right corner.
            let marked = try await client.execute(uri: "/img/_/rs:fit:64:64/wm:1:soea:0:0:0.33/wmu:bG9jYWw6Ly8vcGhvdG9zL0R1bmUuanBn/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(marked.status == .ok, "\(Self.text(marked))")
            let (a, b) = (try RawPixels.decode(Array(buffer: plain.body), loader: .png), try RawPixels.decode(Array(buffer: marked.body), loader: .png))
            #expect(a.pixel(x: 2, y: 2) == b.pixel(x: 2, y: 2), "the top-left is untouched")
            #expect(a.pixel(x: 60, y: 37) != b.pixel(x: 60, y: 37), "the bottom-right carries the mark")
            // Again: the result is cached by the watermark's URL.
            let again = try await client.execute(uri: "/img/_/rs:fit:64:64/wm:1:soea:0:0:0.33/wmu:bG9jYWw6Ly8vcGhvdG9zL0R1bmUuanBn/plain/local:///photos/Aqua.jpg@png", method: .get,
                                                 headers: [.ifNoneMatch: marked.headers[.eTag] ?? ""])
            #expect(again.status == .notModified)

            let missing = try await client.execute(uri: "/img/_/wm:1:soea/wmu:bG9jYWw6Ly8vcGhvdG9zL01pc3NpbmcuanBn/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(missing.status == .notFound && Self.text(missing).contains("watermark image (wmu)"), Comment(rawValue: "\(missing.status) \(Self.text(missing))"))
            let refused = try await client.execute(uri: "/img/_/wm:1:soea/wmu:aHR0cDovLzEyNy4wLjAuMTo5L21hcmsucG5n/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(refused.status == .notFound && Self.text(refused).contains("watermark image (wmu)"), "\(refused.status) \(Self.text(refused))")
        }
    }

    @Test func aFallbackImageStandsInForAMissingSource() async throws {
        let fallback = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Dune.jpg"))
        try await withRouter({ $0.fallbackImage = fallback }) { client in
            let missing = try await client.execute(uri: "/img/_/rs:fill:50:30/plain/local:///photos/Nothing.jpg@png", method: .get)
            #expect(missing.status == .ok, "\(Self.text(missing))")
            #expect(missing.headers[HTTPField.Name(ImageRoutes.sourceStatus)!] == "404")
            // As imgproxy: cached as images are, unless a lifetime of its own is set.
            #expect(missing.headers[.cacheControl] == "public, max-age=31536000")
            let image = try RawPixels.decode(Array(buffer: missing.body), loader: .png)
            #expect((image.width, image.height) == (50, 30), "with the URL's options")
            // Not for the URL's own mistakes.
            let bad = try await client.execute(uri: "/img/_/q:500/plain/local:///photos/Nothing.jpg", method: .get)
            #expect(bad.status == .notFound && bad.headers[HTTPField.Name(ImageRoutes.sourceStatus)!] == nil)
            // A source that is there is itself.
            let there = try await client.execute(uri: "/img/_/rs:fill:50:30/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(there.status == .ok && there.headers[HTTPField.Name(ImageRoutes.sourceStatus)!] == nil)
        }
        // imgproxy's FALLBACK_IMAGE_HTTP_CODE and FALLBACK_IMAGE_TTL.
        for (status, code) in [(0, 404), (203, 203)] {
            try await withRouter({ $0.fallbackImage = fallback; $0.fallbackImageStatus = status; $0.fallbackImageTTL = 60 }) { client in
                let missing = try await client.execute(uri: "/img/_/rs:fill:50:30/plain/local:///photos/Nothing.jpg@png", method: .get)
                #expect(Int(missing.status.code) == code && missing.headers[.cacheControl] == "public, max-age=60", "\(missing.status)")
                #expect(try RawPixels.decode(Array(buffer: missing.body), loader: .png).width == 50, "the fallback image, whatever the status")
                // Never kept past the URL's own expiry.
                let expiring = try await client.execute(uri: "/img/_/exp:\(Int(Date().timeIntervalSince1970) + 30)/rs:fill:50:30/plain/local:///photos/Nothing.jpg@png", method: .get)
                let age = expiring.headers[.cacheControl].flatMap { Int($0.split(separator: "=").last ?? "") }
                #expect(age.map { $0 <= 30 } == true, "\(expiring.headers[.cacheControl] ?? "")")
            }
        }
    }

    @Test func infoDescribesTheSource() async throws {
        try await withRouter { client in
            let response = try await client.execute(uri: "/info/_/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(response.status == .ok && response.headers[.contentType] == "application/json", "\(Self.text(response))")
            let info = try JSONDecoder().decode(ImageInfo.self, from: Data(buffer: response.body))
            let image = try await client.execute(uri: "/img/_/plain/local:///photos/Aqua.jpg@png", method: .get)
            let pixels = try RawPixels.decode(Array(buffer: image.body), loader: .png)
            #expect(info.format == .jpeg && (info.width, info.height) == (pixels.width, pixels.height))
            #expect(info.blurHash.count == 28 && !info.thumbHash.isEmpty)
            let json = Self.text(response)
            for key in ["\"animated\":false", "\"dominant_color\"", "\"blurhash\"", "\"thumbhash\"", "\"exif\"", "\"orientation\":1"] {
                #expect(json.contains(key), "\(key) in \(json)")
            }
            let missing = try await client.execute(uri: "/info/_/plain/local:///photos/Nothing.jpg", method: .get)
            #expect(missing.status == .notFound)
        }
        try await withRouter({ $0.signature = try? URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F") }) { client in
            let unsigned = try await client.execute(uri: "/info/_/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(unsigned.status == .forbidden)
        }
    }

    @Test func maxAgeNeverOutlivesTheURLsExpiry() async throws {
        let soon = Int(Date().timeIntervalSince1970) + 3600
        try await withRouter { client in
            for _ in 0..<2 {   // a miss, then a hit
                let response = try await client.execute(uri: "/img/_/exp:\(soon)/w:32/plain/local:///photos/Aqua.jpg", method: .get)
                #expect(response.status == .ok)
                let maxAge = response.headers[.cacheControl].flatMap { $0.split(separator: "=").last.flatMap { Int($0) } }
                #expect(maxAge.map { (3000...3600).contains($0) } == true, "\(response.headers[.cacheControl] ?? "none")")
            }
            let plain = try await client.execute(uri: "/img/_/w:32/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(plain.headers[.cacheControl] == "public, max-age=31536000")
            let fractional = try await client.execute(uri: "/img/_/exp:\(soon).5/w:32/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(fractional.status == .notFound)
        }
    }

    @Test func rawAnswersTheSourceAsItCame() async throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Aqua.jpg"))
        try await withRouter { client in
            // The extension, the size and the Accept header change nothing.
            let response = try await client.execute(uri: "/img/_/raw:1/w:64/plain/local:///photos/Aqua.jpg@webp", method: .get,
                                                    headers: [.accept: "image/webp"])
            #expect(response.status == .ok, "\(Self.text(response))")
            #expect(response.headers[.contentType] == "image/jpeg")
            #expect(Data(buffer: response.body) == original)
            let notAnImage = try await client.execute(uri: "/img/_/raw:1/plain/local:///list.json", method: .get)
            #expect(notAnImage.status != .ok)
        }
    }

    @Test func theDefaultPresetAndPresetsOnlyMode() async throws {
        try await withRouter({ $0.presets = ["default": "rs:fit:40:40", "wide": "rs:fill:80:20"]; $0.onlyPresets = true }) { client in
            let fallback = try await client.execute(uri: "/img/_//plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(fallback.status == .ok, "\(Self.text(fallback))")
            let wide = try await client.execute(uri: "/img/_/wide/plain/local:///photos/Aqua.jpg@png", method: .get)
            #expect(wide.status == .ok, "\(Self.text(wide))")
            let image = try RawPixels.decode(Array(buffer: wide.body), loader: .png)
            #expect(image.width == 80 && image.height == 20)
            let options = try await client.execute(uri: "/img/_/rs:fit:10:10/plain/local:///photos/Aqua.jpg", method: .get)
            #expect(options.status == .notFound && Self.text(options).contains("unknown preset 'rs'"), "\(Self.text(options))")
        }
    }

    @Test func anOverloadedServerAnswers429WithRetryAfter() async throws {
        // No processing may wait: every request that needs new work is refused.
        try await withRouter({ $0.maxWaitingFiltrations = 0 }) { client in
            let response = try await client.execute(uri: "/img/_/w:64/plain/local:///photos/Dune.jpg", method: .get)
            #expect(response.status == .tooManyRequests, "\(Self.text(response))")
            #expect(response.headers[.retryAfter] == "2")
            #expect(Self.text(response).contains("busy"))
        }
    }

    @Test func theGalleryAndItsAPI() async throws {
        try await withRouter { client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok && Self.text(page).contains("<html"))
            let list = try await client.execute(uri: "/api/list", method: .get)
            #expect(Self.text(list).contains("\"Aqua\""))
            let row = try await client.execute(uri: "/api/rows/0/image", method: .get)
            #expect(row.status == .ok && row.headers[.contentType] == "image/jpeg")
            let missing = try await client.execute(uri: "/api/rows/3/image", method: .get)
            #expect(missing.status == .notFound, "a DarkroomError thrown by a route keeps its status")
            #expect(try await client.execute(uri: "/api/rows/99/image", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/api/books/nope", method: .get).status == .notFound)
            #expect(try await client.execute(uri: "/health", method: .get).status == .ok)
        }
    }
}
