import Darkroom
import DarkroomImaging
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
import ServerTestSupport
import TestSupport

/// imgproxy Pro's options for the crop's shape (`car`), the resampling
/// kernel (`ra`), the source's checksum (`hs`), the answer's DPI, an SVG's
/// style (`st`) and a URL's own fallback (`fiu`); and the security option
/// `mrd:0` and `mb` on HEIC answers, each as imgproxy's docs describe it.
struct ProOptionsServingTests {
    static let photo = "local:///photos/Aqua.jpg"

    static func get(_ client: any TestClientProtocol, _ path: String) async throws -> TestResponse {
        try await client.execute(uri: "/img/_/" + path, method: .get)
    }

    static func size(_ response: TestResponse) throws -> (width: Int, height: Int) {
        try ImageSize.of(Data(buffer: response.body))
    }

    static func base64URL(_ text: String) -> String {
        Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// `car`: the crop's longer side shortened to the ratio; with its
    /// second argument, the shorter lengthened, as far as the image goes.
    @Test func theCropIsBroughtToTheAspectRatio() async throws {
        try await withRouter { client in
            for (options, expected) in [
                ("c:600:400/car:1", (400, 400)), ("c:600:400/car:1:1", (600, 600)), ("c:600:400/car:0", (600, 400)),
                // Enlarged past the 1600 x 1000 photo: the largest 2:1 inside it.
                ("c:1500:800/car:2:1", (1600, 800)), ("c:1500:800/car:0.5:1", (500, 1000)),
                ("car:1", (1600, 1000)),
            ] as [(String, (Int, Int))] {
                let answer = try await Self.get(client, "\(options)/plain/\(Self.photo)@png")
                #expect(answer.status == .ok, "\(options): \(String(buffer: answer.body))")
                let size = try Self.size(answer)
                #expect(size == expected, "\(options): \(size)")
            }
            for bad in ["car:-1", "car:nan", "car:1:1:1", "car"] {
                #expect(try await Self.get(client, "\(bad)/plain/\(Self.photo)").status == .notFound, "\(bad)")
            }
        }
    }

    /// `ra`: libvips' kernels; Lanczos-3, the default, gives the same bytes
    /// as no `ra`, and nearest neighbour another image of the same size.
    @Test func theResizingAlgorithmChoosesTheKernel() async throws {
        try await withRouter { client in
            let plain = try await Self.get(client, "rs:fit:64:64/plain/\(Self.photo)@png")
            let lanczos = try await Self.get(client, "rs:fit:64:64/ra:lanczos3/plain/\(Self.photo)@png")
            #expect(plain.status == .ok && Array(buffer: plain.body) == Array(buffer: lanczos.body))
            var bodies: Set<[UInt8]> = []
            for kernel in ["nearest", "linear", "cubic", "lanczos2"] {
                let answer = try await Self.get(client, "rs:fit:64:64/ra:\(kernel)/plain/\(Self.photo)@png")
                #expect(try answer.status == .ok && Self.size(answer) == (64, 40), "\(kernel): \(String(buffer: answer.body))")
                #expect(Array(buffer: answer.body) != Array(buffer: plain.body), "\(kernel) is not Lanczos-3")
                bodies.insert(Array(buffer: answer.body))
            }
            #expect(bodies.count == 4, "each kernel its own pixels")
            #expect(try await Self.get(client, "ra:bicubic/plain/\(Self.photo)").status == .notFound)
        }
    }

    /// `hs`: the source's bytes checked, a mismatch a 422 (also cached
    /// apart from a match), `none` no check.
    @Test func theSourcesHashsumIsChecked() async throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Aqua.jpg"))
        let sha256 = Hashsum.hex(of: bytes, .sha256)
        let wrong = String(repeating: "0", count: 64)
        try await withRouter { client in
            let matching = try await Self.get(client, "rs:fit:32:32/hs:sha256:\(sha256)/plain/\(Self.photo)")
            #expect(matching.status == .ok, "\(String(buffer: matching.body))")
            let mismatch = try await Self.get(client, "rs:fit:32:32/hs:sha256:\(wrong)/plain/\(Self.photo)")
            #expect(mismatch.status == .unprocessableContent && String(buffer: mismatch.body).contains("hashsum"), "\(String(buffer: mismatch.body))")
            #expect(try await Self.get(client, "rs:fit:32:32/hs:none/plain/\(Self.photo)").status == .ok)
            #expect(try await Self.get(client, "raw:1/hs:md5:\(String(repeating: "0", count: 32))/plain/\(Self.photo)").status == .unprocessableContent)
            for bad in ["hs:sha256:abc", "hs:crc32:00", "hs:sha256"] {
                #expect(try await Self.get(client, "\(bad)/plain/\(Self.photo)").status == .notFound, "\(bad)")
            }
        }
    }

    /// `dpi`: the resolution a JPEG or PNG answer states, metadata stripped
    /// or not; without it, the source's own.
    @Test func theAnswerStatesTheDPIAsked() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-dpi")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withRouter { client in
            for (path, dpi) in [("dpi:300/rs:fit:64:64/plain/\(Self.photo)@jpg", 300.0), ("dpi:150/plain/\(Self.photo)@png", 150),
                                ("dpi:96/sm:0/rs:fit:64:64/plain/\(Self.photo)@jpg", 96), ("dpi:200/plain/\(Self.photo)@tiff", 200)] {
                let answer = try await Self.get(client, path)
                #expect(answer.status == .ok, "\(path): \(String(buffer: answer.body))")
                let file = folder.appendingPathComponent(UUID().uuidString)
                try Data(buffer: answer.body).write(to: file)
                let header = try await runTool("/usr/bin/vipsheader", ["-f", "xres", file.path])
                let xres = header.output.split(separator: "\n").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }.first
                #expect(abs((xres ?? 0) * 25.4 - dpi) < 0.5, "\(path): \(header.output)")
            }
            #expect(try await Self.get(client, "dpi:-1/plain/\(Self.photo)").status == .notFound)
        }
    }

    /// `st`: the CSS goes first in the SVG and is sanitised with it.
    @Test func anSVGsStyleIsPutInAndSanitised() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-style")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(#"<?xml version="1.0"?><!-- a square --><svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect class="a" width="40" height="40" fill="blue"/></svg>"#.utf8)
            .write(to: folder.appendingPathComponent("square.svg"))
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"/>"#.utf8).write(to: folder.appendingPathComponent("empty.svg"))
        let red = Self.base64URL(".a { fill: #ff0000 }")
        try await withRouter({
            $0.localRoot = folder
            $0.limits.svgDrawing = SVGServingTests.drawing
        }) { client in
            let styled = try await Self.get(client, "st:\(red)/plain/local:///square.svg")
            let text = String(buffer: styled.body)
            #expect(styled.status == .ok && text.contains("<style>") && text.contains("#ff0000"), "\(text)")
            let drawn = try await Self.get(client, "st:\(red)/plain/local:///square.svg@png")
            #expect(drawn.status == .ok, "\(String(buffer: drawn.body))")
            let pixel = try RawPixels.decode([UInt8](Data(buffer: drawn.body)), loader: .png).pixel(x: 20, y: 20)
            #expect(pixel[0] > 200 && pixel[2] < 50, "\(pixel)")
            // Without the style, blue; a self-closing root gets the style too.
            let plain = try RawPixels.decode([UInt8](Data(buffer: try await Self.get(client, "plain/local:///square.svg@png").body)), loader: .png)
            #expect(plain.pixel(x: 20, y: 20)[2] > 200)
            let empty = String(buffer: try await Self.get(client, "st:\(red)/plain/local:///empty.svg").body)
            #expect(empty.contains("<style>") && empty.contains("</svg>"), "\(empty)")
            // A style reaching outside is sanitised away as any sheet is.
            let outside = Self.base64URL(".a { fill: url(http://127.0.0.1:9/x.svg#p) }")
            let cleaned = String(buffer: try await Self.get(client, "st:\(outside)/plain/local:///square.svg").body)
            #expect(!cleaned.contains("127.0.0.1"), "\(cleaned)")
        }
    }

    /// `fiu`: the URL's own fallback, over the server's, with the source's
    /// status beside it.
    @Test func theURLsFallbackStandsInForAMissingSource() async throws {
        let fallback = Self.base64URL("local:///photos/Dune.jpg")
        try await withRouter { client in
            let answer = try await Self.get(client, "rs:fit:64:64/fiu:\(fallback)/plain/local:///photos/missing.jpg@png")
            #expect(answer.status == .ok && answer.headers[HTTPField.Name("Darkroom-Source-Status")!] == "404", "\(String(buffer: answer.body))")
            let dune = try await Self.get(client, "rs:fit:64:64/plain/local:///photos/Dune.jpg@png")
            #expect(Array(buffer: answer.body) == Array(buffer: dune.body))
            #expect(try await Self.get(client, "rs:fit:64:64/plain/local:///photos/missing.jpg@png").status == .notFound)
            #expect(try await Self.get(client, "fiu:\(Self.base64URL("ftp://x/y"))/plain/\(Self.photo)").status == .notFound)
        }
    }

    /// `mrd:0` lifts the result limit, as imgproxy's 0 does (where the
    /// server takes security options from URLs).
    @Test func aResultLimitOfZeroIsNoLimit() async throws {
        try await withRouter({
            $0.limits.maxResultDimension = 500
            $0.allowSecurityOptions = true
        }) { client in
            let limited = try await Self.get(client, "rs:fit:800:0:1/plain/\(Self.photo)@png")
            #expect(try Self.size(limited) == (500, 313))
            let lifted = try await Self.get(client, "rs:fit:800:0:1/mrd:0/plain/\(Self.photo)@png")
            #expect(try lifted.status == .ok && Self.size(lifted) == (800, 500), "\(String(buffer: lifted.body))")
        }
    }

    /// `mb` lowers a HEIC answer's quality too, as imgproxy's does.
    @Test func aByteLimitHoldsForHEIC() async throws {
        try await withRouter({ $0.limits.encodingChild = EncodingChild(command: [DarkroomProcess.binary.path, "encode-image"]) }) { client in
            let plain = try await Self.get(client, "rs:fit:400:400/q:95/plain/\(Self.photo)@heic")
            let limited = try await Self.get(client, "rs:fit:400:400/q:95/mb:6000/plain/\(Self.photo)@heic")
            #expect(plain.status == .ok && limited.status == .ok, "\(String(buffer: limited.body))")
            #expect(plain.body.readableBytes > 6000 && limited.body.readableBytes <= 6000, "\(plain.body.readableBytes) -> \(limited.body.readableBytes)")
        }
    }
}

/// The server's watermark and fallback fetched as sources are, the
/// watermark's base opacity, its own header fields on answers and on
/// source requests, and `/info`'s presets (imgproxy's variables).
struct ServerImageSettingsServingTests {
    static let photo = ProOptionsServingTests.photo
    static let dune = URL(string: "local:///photos/Dune.jpg")!

    @Test func theWatermarkAndFallbackMayBeFetched() async throws {
        let mark = try Data(contentsOf: URL(fileURLWithPath: Gallery.samplesFolder).appendingPathComponent("photos/Dune.jpg"))
        try await withRouter({
            $0.watermarkURL = Self.dune
            $0.fallbackImageURL = Self.dune
        }) { client in
            let fetched = try await ProOptionsServingTests.get(client, "rs:fit:64:64/wm:1:soea:0:0:0.33/plain/\(Self.photo)@png")
            let byURL = try await ProOptionsServingTests.get(
                client, "rs:fit:64:64/wm:1:soea:0:0:0.33/wmu:\(ProOptionsServingTests.base64URL(Self.dune.absoluteString))/plain/\(Self.photo)@png")
            let plain = try await ProOptionsServingTests.get(client, "rs:fit:64:64/plain/\(Self.photo)@png")
            #expect(fetched.status == .ok && Array(buffer: fetched.body) == Array(buffer: byURL.body), "\(String(buffer: fetched.body))")
            #expect(Array(buffer: fetched.body) != Array(buffer: plain.body))
            let missing = try await ProOptionsServingTests.get(client, "rs:fit:64:64/plain/local:///photos/missing.jpg@png")
            let dune = try await ProOptionsServingTests.get(client, "rs:fit:64:64/plain/\(Self.dune.absoluteString)@png")
            #expect(missing.status == .ok && Array(buffer: missing.body) == Array(buffer: dune.body))
        }
        // The base opacity multiplies the URL's.
        final class Bodies: @unchecked Sendable { var all: [[UInt8]] = [] }
        let halves = Bodies()
        for (base, opacity) in [(0.5, "1"), (1.0, "0.5")] {
            try await withRouter({
                $0.watermark = WatermarkImage(data: mark)
                $0.watermarkOpacity = base
            }) { client in
                let answer = try await ProOptionsServingTests.get(client, "rs:fit:64:64/wm:\(opacity):soea:0:0:0.33/plain/\(Self.photo)@png")
                #expect(answer.status == .ok)
                halves.all.append(Array(buffer: answer.body))
            }
        }
        #expect(halves.all.count == 2 && halves.all[0] == halves.all[1])
    }

    @Test func theServersFieldsGoOnAnswersAndInfoHasItsPresets() async throws {
        try await withRouter({
            $0.customResponseHeaders = [PassedHeader(name: "X-Served-By", value: "darkroom")]
            $0.infoPresets = ["meta": "xmp:0/bh:2:2"]
        }) { client in
            for _ in 0..<2 {
                // The miss, then the hit.
                let answer = try await ProOptionsServingTests.get(client, "rs:fit:64:64/plain/\(Self.photo)")
                #expect(answer.status == .ok && answer.headers[HTTPField.Name("X-Served-By")!] == "darkroom")
            }
            let info = try await client.execute(uri: "/info/_/pr:meta/plain/\(Self.photo)", method: .get)
            #expect(info.status == .ok, "\(String(buffer: info.body))")
            #expect(try await ProOptionsServingTests.get(client, "pr:meta/plain/\(Self.photo)").status == .notFound,
                    "info presets are /info's alone")
        }
    }

    @Test func sourcesAreAskedWithTheServersFields() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { c in
            c.customRequestHeaders = [PassedHeader(name: "X-Origin-Token", value: "abc")]
        }) { server, origin in
            let answer = try await server.get("/_/w:50/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg")
            #expect(answer.status == .ok)
            #expect(origin.lastHeaders("/landscape.jpg")?["x-origin-token"] == "abc")
        }
    }
}

/// Pro's `ch` watermark position: tiles as `re` lays them, every other
/// one left empty, as a chessboard's squares.
struct ChessboardWatermarkTests {
    @Test func everyOtherTileIsLeftEmpty() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-chessboard")
        defer { try? FileManager.default.removeItem(at: folder) }
        let black = folder.appendingPathComponent("black.v").path
        for (arguments, what) in [(["black", black, "90", "90", "--bands", "3"], "a black canvas"),
                                  (["linear", black, folder.appendingPathComponent("white.png").path, "1", "255", "--uchar"], "a white one"),
                                  (["linear", black, folder.appendingPathComponent("red.png").path, "1 1 1", "255 0 0", "--uchar"], "a red one")] {
            let made = try await runTool("/usr/bin/vips", arguments)
            #expect(made.status == 0, "\(what): \(made.output)")
        }
        // The mark: a 10 x 10 red square, cut from the red canvas.
        let mark = try await runTool("/usr/bin/vips", ["crop", folder.appendingPathComponent("red.png").path,
                                                        folder.appendingPathComponent("mark.png").path, "0", "0", "10", "10"])
        #expect(mark.status == 0, "\(mark.output)")
        let markData = try Data(contentsOf: folder.appendingPathComponent("mark.png"))
        try await withRouter({
            $0.localRoot = folder
            $0.watermark = WatermarkImage(data: markData)
        }) { client in
            // A gap of 20: tiles of 30, three each way, the mark 10 in.
            for position in ["re", "ch"] {
                let answer = try await ProOptionsServingTests.get(client, "wm:1:\(position):20:20/plain/local:///white.png@png")
                #expect(answer.status == .ok, "\(String(buffer: answer.body))")
                let pixels = try RawPixels.decode([UInt8](Data(buffer: answer.body)), loader: .png)
                for y in [15, 45, 75] {
                    for x in [15, 45, 75] {
                        let isRed = pixels.pixel(x: x, y: y)[1] < 50
                        let expected = position == "re" || (x / 30 + y / 30).isMultiple(of: 2)
                        #expect(isRed == expected, "\(position) at \(x),\(y)")
                    }
                }
            }
        }
    }
}

/// Pro's `bc` (only where the server allows it) and `ct`.
struct CacheOptionsServingTests {
    /// Each `bc` request fetches and processes anew; the others are hits.
    @Test func bypassingTheCacheFetchesAgain() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.allowBypassCache = true }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            #expect(try await server.get("/_/w:50/plain/\(source)@jpg").status == .ok)
            #expect(try await server.get("/_/w:50/plain/\(source)@jpg").status == .ok)
            #expect(origin.requests("/landscape.jpg") == 1, "a hit the second time")
            for round in 1...2 {
                let bypassing = try await server.get("/_/w:50/bc:1/plain/\(source)@jpg")
                #expect(bypassing.status == .ok)
                #expect(origin.requests("/landscape.jpg") == 1 + round, "round \(round): asked the origin again")
            }
            #expect(try await server.get("/_/w:50/bc:0/plain/\(source)@jpg").status == .ok)
            #expect(origin.requests("/landscape.jpg") == 3)
        }
        try await RoutedServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let refused = try await server.get("/_/w:50/bc:1/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg")
            #expect(refused.status == .notFound && String(decoding: refused.body, as: UTF8.self).contains("bypasses the cache"))
            #expect(origin.requests("/landscape.jpg") == 0)
            #expect(try await server.get("/_/w:50/bc:0/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg").status == .ok)
        }
    }

    /// `ct`'s tags in CloudFront's and Cloudflare's fields, or the one set.
    @Test func cacheTagsAreInTheAnswersFields() async throws {
        let path = "rs:fit:32:32/ct:photos:aqua/plain/\(ProOptionsServingTests.photo)"
        try await withRouter { client in
            for _ in 0..<2 {
                let answer = try await ProOptionsServingTests.get(client, path)
                #expect(answer.headers[HTTPField.Name("Cache-Tag")!] == "photos,aqua")
                #expect(answer.headers[HTTPField.Name("x-amz-meta-cache-tag")!] == "photos,aqua")
            }
            #expect(try await ProOptionsServingTests.get(client, "ct:a,b/plain/\(ProOptionsServingTests.photo)").status == .notFound)
        }
        try await withRouter({ $0.cacheTagsFormat = .cloudflare }) { client in
            let answer = try await ProOptionsServingTests.get(client, path)
            #expect(answer.headers[HTTPField.Name("Cache-Tag")!] == "photos,aqua" && answer.headers[HTTPField.Name("x-amz-meta-cache-tag")!] == nil)
        }
    }
}

/// Pro's `ba` on a rotated photo and `pbl`.
struct BlurOptionsServingTests {
    static func pixels(_ response: TestResponse) throws -> RawPixels {
        try RawPixels.decode([UInt8](Data(buffer: response.body)), loader: .png)
    }

    /// Whether the quadrant starting at (`x`, `y`) of `a` and `b` differ.
    static func differs(_ a: RawPixels, _ b: RawPixels, x: Int, y: Int) -> Bool { difference(a, b, x: x, y: y) > 400 }

    static func difference(_ a: RawPixels, _ b: RawPixels, x: Int, y: Int) -> Int {
        var total = 0
        for row in stride(from: y + 10, to: y + a.height / 2 - 10, by: 4) {
            for column in stride(from: x + 10, to: x + a.width / 2 - 10, by: 4) {
                total += zip(a.pixel(x: column, y: row), b.pixel(x: column, y: row)).map { abs(Int($0) - Int($1)) }.reduce(0, +)
            }
        }
        return total
    }

    /// `ba`'s areas are fractions of the photo as stored, as Pro reads
    /// them: the stored top-left of a photo stored turned (EXIF 6) is the
    /// upright top-right.
    @Test func blurAreasFollowTheStoredOrientation() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-blur-areas")
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(try Fixtures.data("right-orientation.jpg")).write(to: folder.appendingPathComponent("turned.jpg"))
        try await withRouter({ $0.localRoot = folder }) { client in
            let plain = try Self.pixels(try await ProOptionsServingTests.get(client, "plain/local:///turned.jpg@png"))
            let blurred = try Self.pixels(try await ProOptionsServingTests.get(client, "ba:20:0:0:0.5:0.5/plain/local:///turned.jpg@png"))
            #expect((plain.width, plain.height) == (240, 160))
            #expect(Self.differs(plain, blurred, x: 120, y: 0), "the upright top-right is blurred")
            for (x, y) in [(0, 0), (0, 80), (120, 80)] {
                #expect(!Self.differs(plain, blurred, x: x, y: y), "\(x),\(y) is not")
            }
        }
    }

    /// `pbl`: sharp where the ramp starts, blurred where it stops.
    @Test func theProgressiveBlurGrowsAlongItsDirection() async throws {
        try await withRouter { client in
            let path = "rs:fit:200:200/plain/\(ProOptionsServingTests.photo)@png"
            let plain = try Self.pixels(try await ProOptionsServingTests.get(client, path))
            // From halfway: the other half stays as it is.
            let down = try Self.pixels(try await ProOptionsServingTests.get(client, "pbl:8:down:0.5:1/" + path))
            let up = try Self.pixels(try await ProOptionsServingTests.get(client, "pbl:8:up:0.5:1/" + path))
            #expect(!Self.differs(plain, down, x: 0, y: 0) && Self.differs(plain, down, x: 0, y: plain.height / 2),
                    "\(Self.difference(plain, down, x: 0, y: 0)) \(Self.difference(plain, down, x: 0, y: plain.height / 2))")
            #expect(Self.differs(plain, up, x: 0, y: 0) && !Self.differs(plain, up, x: 0, y: plain.height / 2))
            for bad in ["pbl:-1", "pbl:101", "pbl:5:down:0.8:0.2", "pbl:5:sideways"] {
                #expect(try await ProOptionsServingTests.get(client, "\(bad)/\(path)").status == .notFound, "\(bad)")
            }
        }
    }
}

/// Pro's chained pipelines: `-` starts a pipeline on the result of the
/// one before; presets that chain them merge as Pro's docs show.
struct ChainedPipelinesTests {
    @Test func presetsMergeIntoThePipelinesAsProsDocsShow() throws {
        let context = ImageURLOptions.Context(presets: ["test": "width:300/height:300/-/width:200/height:200/-/width:100/height:200"])
        let url = try ImageURL(path: "/_/width:400/-/preset:test/width:500/-/width:600/plain/http://x.org/a.jpg", context: context)
        let sizes = try #require(url.pipelines).map { ($0.width, $0.height) }
        #expect(sizes.count == 4)
        #expect(sizes.elementsEqual([(400, 0), (500, 300), (600, 200), (100, 200)], by: ==), "\(sizes)")
        #expect(try ImageURL(path: "/_/w:10/plain/http://x.org/a.jpg", context: context).pipelines == nil)
        let many = "/_/" + Array(repeating: "w:10", count: ImageURLOptions.maxPipelines + 1).joined(separator: "/-/") + "/plain/http://x.org/a.jpg"
        #expect(throws: ImageURLError.self) { try ImageURL(path: many, context: context) }
        var fewer = context
        fewer.maxPipelines = 2
        #expect(throws: ImageURLError.self) { try ImageURL(path: "/_/w:1/-/w:2/-/w:3/plain/http://x.org/a.jpg", context: fewer) }
        // Checked at start as a URL would use it.
        try ImageURLOptions.check(presets: context.presets)
        #expect(throws: ImageURLError.self) { try ImageURLOptions.check(presets: ["bad": "w:1/-/nonsense:2"]) }
    }

    /// Two watermarks, one a pipeline, as Pro's docs' first example: both
    /// corners marked, where one pipeline marks one.
    @Test func eachPipelineLaysItsOwnWatermark() async throws {
        let mark = Self.base64("local:///photos/Dune.jpg")
        try await withRouter { client in
            let path = "rs:fit:200:200/wm:1:nowe:0:0:0.3/wmu:\(mark)/-/wm:1:soea:0:0:0.3/wmu:\(mark)/plain/\(ProOptionsServingTests.photo)@png"
            let both = try BlurOptionsServingTests.pixels(try await ProOptionsServingTests.get(client, path))
            let plain = try BlurOptionsServingTests.pixels(try await ProOptionsServingTests.get(client, "rs:fit:200:200/plain/\(ProOptionsServingTests.photo)@png"))
            #expect((both.width, both.height) == (200, 125))
            #expect(BlurOptionsServingTests.differs(plain, both, x: 0, y: 0), "the first pipeline's mark, top left")
            #expect(BlurOptionsServingTests.differs(plain, both, x: 100, y: 62), "the second's, bottom right")
            // A pipeline's steps take the one before's result: 400 x 250, then cut.
            let cut = try await ProOptionsServingTests.get(client, "rs:fit:400:400/-/c:100:100/plain/\(ProOptionsServingTests.photo)@png")
            #expect(try ProOptionsServingTests.size(cut) == (100, 100))
        }
    }

    static func base64(_ text: String) -> String { ProOptionsServingTests.base64URL(text) }
}

/// Pro's `cp`: the answer converted to a profile it then carries.
struct ColourProfileServingTests {
    static let adobe = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"

    static func header(_ response: TestResponse, _ folder: URL) async throws -> String {
        let file = folder.appendingPathComponent(UUID().uuidString)
        try Data(buffer: response.body).write(to: file)
        return try await runTool("/usr/bin/vipsheader", ["-a", file.path]).output
    }

    @Test func theAnswerCarriesTheProfileAsked() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-profiles")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await withRouter({ $0.colourProfiles = ["compatibleWithAdobeRGB1998": Self.adobe, "compatibleWithAdobeRGB1998.icc": Self.adobe] }) { client in
            let plainPNG = try await ProOptionsServingTests.get(client, "rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@png")
            let plainHeader = try await Self.header(plainPNG, folder)
            #expect(!plainHeader.contains("icc-profile-data"), "stripped by default")
            let cmyk = try await ProOptionsServingTests.get(client, "cp:cmyk/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@jpg")
            let cmykHeader = try await Self.header(cmyk, folder)
            #expect(cmyk.status == .ok && cmykHeader.contains("bands: 4") && cmykHeader.contains("icc-profile-data"), "\(cmykHeader)")
            for name in ["compatibleWithAdobeRGB1998", "compatibleWithAdobeRGB1998.icc"] {
                let adobe = try await ProOptionsServingTests.get(client, "icc:\(name)/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@png")
                let adobeHeader = try await Self.header(adobe, folder)
                #expect(adobe.status == .ok && adobeHeader.contains("icc-profile-data"), "\(name)")
                #expect(adobe.body != plainPNG.body, "converted")
            }
            let srgb = try await ProOptionsServingTests.get(client, "color_profile:srgb/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@webp")
            let srgbHeader = try await Self.header(srgb, folder)
            #expect(srgb.status == .ok && srgbHeader.contains("icc-profile-data"))
            // CMYK only where the format has it: a PNG stays RGB, with no profile.
            let cmykPNG = try await ProOptionsServingTests.get(client, "cp:cmyk/rs:fit:64:64/plain/\(ProOptionsServingTests.photo)@png")
            let cmykPNGHeader = try await Self.header(cmykPNG, folder)
            #expect(cmykPNG.status == .ok && cmykPNGHeader.contains("bands: 3") && !cmykPNGHeader.contains("icc-profile-data"), "\(cmykPNGHeader)")
            for bad in ["cp:nowhere", "cp:..%2Fpasswd", "cp:.hidden"] {
                let refused = try await ProOptionsServingTests.get(client, "\(bad)/plain/\(ProOptionsServingTests.photo)")
                #expect(refused.status == .notFound, "\(bad): \(String(buffer: refused.body))")
            }
        }
    }
}

/// Pro's `IMGPROXY_RESPONSE_HEADERS_PASSTHROUGH`: the origin's fields on
/// the answer, a hit's too.
struct ResponseHeadersPassthroughTests {
    @Test func theOriginsFieldsArePassedOn() async throws {
        try await RoutedServer.withOrigin(serving: Fixtures.folder, { $0.responseHeadersPassthrough = ["x-photographer", "x-licence"] }) { server, origin in
            origin.set(.headers([("X-Photographer", "Ada"), ("X-Licence", "CC-BY"), ("X-Internal", "secret")]), for: "/landscape.jpg")
            for _ in 0..<2 {
                // The miss, then the hit.
                let answer = try await server.get("/_/w:50/plain/\(origin.url("/landscape.jpg").absoluteString)@jpg")
                #expect(answer.status == .ok)
                #expect(answer.header("X-Photographer") == "Ada" && answer.header("X-Licence") == "CC-BY", "\(answer.headers)")
                #expect(answer.header("X-Internal") == nil, "only the fields named")
            }
            #expect(origin.requests("/landscape.jpg") == 1)
        }
    }
}
