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
