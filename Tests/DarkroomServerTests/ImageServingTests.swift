import Darkroom
import DarkroomImaging
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

@Suite(.offCooperativePool) struct ImageServingTests {
    /// The router, which may fetch from the loopback origin, and the origin.
    func withServer(_ configure: (inout ServerConfiguration) -> Void = { _ in },
                    _ body: @escaping @Sendable (RoutedServer, OriginServer) async throws -> Void) async throws {
        try await RoutedServer.withOrigin(serving: Corpus.root, configure, body)
    }

    /// A live server on a port, for what only it has: hits answered on the
    /// event loop, a client that hangs up.
    func withLiveServer(_ configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
                        _ body: (TestServer, OriginServer) async throws -> Void) async throws {
        try await TestServer.withOrigin(serving: Corpus.root, configure, body)
    }

    func decode(_ answer: RoutedServer.Answer, _ loader: VImage.Loader) throws -> RawPixels {
        try RawPixels.decode([UInt8](answer.body), loader: loader)
    }

    @Test func sizesAndFormats() async throws {
        try await withServer { server, origin in
            let source = origin.url("/photos/Aqua.jpg").absoluteString
            let cases: [(String, String, VImage.Loader, Int, Int)] = [
                ("rs:fill:300:200", "jpg", .jpeg, 300, 200),
                ("rs:fit:300:300", "png", .png, 300, 188),
                ("w:160", "webp", .webp, 160, 100),
                ("rs:force:90:90/sepia:0.8", "avif", .heif, 90, 90),
            ]
            for (options, ext, loader, width, height) in cases {
                let answer = try await server.get("/img/_/\(options)/plain/\(source)@\(ext)")
                #expect(answer.status == .ok, "\(options)@\(ext): \(String(decoding: answer.body, as: UTF8.self))")
                #expect(answer.header("Content-Type") == ImageFormat(name: ext)!.mimeType)
                #expect(answer.header("Content-Length") == "\(answer.body.count)")
                let pixels = try decode(answer, loader)
                #expect((pixels.width, pixels.height) == (width, height), "\(options)@\(ext)")
            }
            // The base64 form names the same image.
            let encoded = Data(source.utf8).base64URLEncodedString()
            let answer = try await server.get("/img/_/w:160/\(encoded).webp")
            let width = try decode(answer, .webp).width
            #expect(answer.status == .ok && width == 160)
        }
    }

    @Test func acceptNegotiationAndVary() async throws {
        try await withServer { server, origin in
            let path = "/img/_/w:120/plain/\(origin.url("/photos/Storm.jpg").absoluteString)"
            let webp = try await server.get(path, headers: [("Accept", "image/webp,*/*")])
            #expect(webp.header("Content-Type") == "image/webp")
            #expect(webp.header("Vary") == "Accept")
            let avif = try await server.get(path, headers: [("Accept", "image/avif,image/webp,*/*")])
            #expect(avif.header("Content-Type") == "image/avif")
            let plain = try await server.get(path)
            #expect(plain.header("Content-Type") == "image/jpeg")
            #expect(plain.header("Vary") == "Accept")
            #expect(webp.header("ETag") != plain.header("ETag"))
            let explicit = try await server.get(path + "@png", headers: [("Accept", "image/webp")])
            #expect(explicit.header("Content-Type") == "image/png")
            #expect(explicit.header("Vary") == nil)
        }
    }

    @Test func cachingHeadersETagAnd304() async throws {
        try await withLiveServer { server, origin in
            let path = "/img/_/rs:fill:100:100/plain/\(origin.url("/photos/Wood.jpg").absoluteString)@jpg"
            let first = try await server.get(path)
            #expect(first.status == .ok)
            #expect(first.header("Cache-Control") == "public, max-age=31536000")
            let etag = try #require(first.header("ETag"))
            #expect(etag.hasPrefix("\"") && !etag.hasPrefix("W/"))
            let again = try await server.get(path, headers: [("If-None-Match", etag)])
            #expect(again.status == .notModified)
            #expect(again.body.isEmpty)
            #expect(again.header("ETag") == etag)
            let other = try await server.get(path, headers: [("If-None-Match", "\"something-else\"")])
            #expect(other.status == .ok)
            // As imgproxy: a URL that does not parse is a 404, with the reason.
            let error = try await server.get("/img/_/vignette:2/plain/\(origin.url("/photos/Wood.jpg").absoluteString)")
            #expect(error.status == .notFound)
            #expect(error.header("Cache-Control") == "no-store")
            #expect(String(decoding: error.body, as: UTF8.self).contains("unknown option 'vignette'"))
        }
    }

    @Test func signedURLs() async throws {
        let signer = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
        try await withServer({ $0.signature = signer }) { server, origin in
            let signedPath = "/w:80/plain/\(origin.url("/photos/Garden.jpg").absoluteString)@jpg"
            let good = try await server.get("/img/\(signer.sign(signedPath))\(signedPath)")
            #expect(good.status == .ok)
            for wrong in ["unsafe", "_", String(signer.sign(signedPath).reversed())] {
                let answer = try await server.get("/img/\(wrong)\(signedPath)")
                #expect(answer.status == .forbidden, "\(wrong)")
                #expect(answer.header("Cache-Control") == "no-store")
            }
            // A signature for other options does not carry over.
            let tampered = try await server.get("/img/\(signer.sign(signedPath))/w:800/plain/\(origin.url("/photos/Garden.jpg").absoluteString)@jpg")
            #expect(tampered.status == .forbidden)
        }
    }

    /// The signature covers what the client wrote, preset names and all:
    /// a signed preset URL is served; the same signature on another preset,
    /// or a signature made over the preset's expansion, is 403.
    @Test func aSignedPresetURLIsCheckedAsWritten() async throws {
        let signer = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
        try await withServer({ $0.signature = signer; $0.presets = ["thumb": "rs:fill:80:80/sepia:0.8", "big": "w:400"] }) { server, origin in
            let source = origin.url("/photos/Garden.jpg").absoluteString
            let written = "/pr:thumb/plain/\(source)@jpg"
            let good = try await server.get("/img/\(signer.sign(written))\(written)")
            #expect(good.status == .ok)
            #expect(try ImageSize.of(good.body) == (80, 80))
            let other = try await server.get("/img/\(signer.sign(written))/pr:big/plain/\(source)@jpg")
            #expect(other.status == .forbidden, "a preset the signature does not name")
            let expanded = "/rs:fill:80:80/sepia:0.8/plain/\(source)@jpg"
            let signedExpansion = try await server.get("/img/\(signer.sign(expanded))\(written)")
            #expect(signedExpansion.status == .forbidden, "the signature is over the preset's name, not its expansion")
        }
    }

    /// `exp` is checked on every use of a parsed URL: one asked again once
    /// its time is past is refused, though its result is in every cache
    /// and its parse is remembered. Live: the hits are answered on the
    /// event loop, which must refuse the expired URL as the route does.
    @Test func aURLThatExpiresBetweenTwoHitsIsRefusedTheSecondTime() async throws {
        try await withLiveServer { server, origin in
            // The result made first without exp (exp is not part of what is
            // made), so that both asks below are quick hits well inside the
            // URL's 30 seconds (hundreds of times what they take), however
            // busy the machine.
            let source = origin.url("/photos/Garden.jpg").absoluteString
            #expect(try await server.get("/img/_/w:60/plain/\(source)@jpg").status == .ok)
            let expiry = Int(Date().timeIntervalSince1970) + 30
            let path = "/img/_/exp:\(expiry)/w:60/plain/\(source)@jpg"
            #expect(try await server.get(path).status == .ok)
            let hit = try await server.get(path)
            #expect(hit.status == .ok, "a hit while it is valid")
            // The wall clock past the expiry (what exp is about), polled.
            #expect(await eventuallyAsync(120) { Int(Date().timeIntervalSince1970) > expiry })
            let late = try await server.get(path)
            #expect(late.status == .notFound, "\(late.status): \(String(decoding: late.body, as: UTF8.self))")
            #expect(String(decoding: late.body, as: UTF8.self).contains("expired"))
        }
    }

    @Test func theAddressMatrixIsRefused() async throws {
        try await withServer { server, origin in
            origin.set(.redirect("http://127.0.0.2:\(origin.port)/photos/Aqua.jpg"), for: "/moved")
            let sources = [
                "http://127.0.0.1:\(origin.port + 1)/a.jpg", "http://[::1]/a.jpg", "http://10.0.0.1/a.jpg",
                "http://172.16.0.1/a.jpg", "http://192.168.0.1/a.jpg", "http://169.254.169.254/latest/meta-data/",
                "http://100.64.0.1/a.jpg", "http://[::ffff:127.0.0.1]/a.jpg", "http://localhost:\(origin.port)/photos/Aqua.jpg",
                origin.url("/moved").absoluteString,   // trusted origin, redirecting to loopback
                // IPv4-translated loopback, which once connected; special-purpose ranges.
                "http://[::ffff:0:127.0.0.1]:\(origin.port)/photos/Aqua.jpg", "http://[64:ff9b::7f00:1]:\(origin.port)/photos/Aqua.jpg",
                "http://198.18.0.1/a.jpg", "http://192.0.0.170/a.jpg", "http://[fec0::1]/a.jpg", "http://[100::1]/a.jpg",
            ]
            for source in sources {
                let answer = try await server.get("/img/_/w:50/plain/\(source)")
                // imgproxy's TestSourceNetworkValidation: a 404, the reason in the body.
                #expect(answer.status == .notFound, "\(source): \(answer.status)")
                #expect(String(decoding: answer.body, as: UTF8.self).contains("private addresses are not fetched"), "\(source)")
            }
            #expect(origin.requests("/photos/Aqua.jpg") == 0, "nothing was fetched from a refused address")
            let ftp = try await server.get("/img/_/w:50/plain/ftp://example.com/a.jpg")
            #expect(ftp.status == .notFound && String(decoding: ftp.body, as: UTF8.self).contains("not an http or https URL"))
            // A redirect to another scheme, as imgproxy: 404, the reason kept.
            for (path, target) in [("/to-file", "file:///etc/passwd"), ("/to-ftp", "ftp://example.com/a.jpg"),
                                   ("/to-socket", "http+unix://%2Ftmp%2Fx.sock/a.jpg")] {
                origin.set(.redirect(target), for: path)
                let answer = try await server.get("/img/_/w:50/plain/\(origin.url(path).absoluteString)")
                #expect(answer.status == .notFound && String(decoding: answer.body, as: UTF8.self).contains("not an http or https URL"), "\(target): \(answer.status)")
            }
        }
    }

    @Test func anAllowListLimitsSources() async throws {
        try await withServer({ $0.allowedSources = ["https://images.example.com/"] }) { server, origin in
            let answer = try await server.get("/img/_/w:50/plain/\(origin.url("/photos/Aqua.jpg").absoluteString)")
            #expect(answer.status == .notFound, "as imgproxy answers a source it does not allow")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("allowed source prefix"))
        }
    }

    @Test func limitsAnswerWithAReason() async throws {
        try await withServer({ $0.limits.maxSourceBytes = 300_000; $0.limits.maxSourcePixels = 3_000_000 }) { server, origin in
            let big = try await server.get("/img/_/w:50/plain/\(origin.url("/photos/Blinds.jpg").absoluteString)")
            #expect(big.status == .unprocessableContent)
            #expect(String(decoding: big.body, as: UTF8.self).contains("over the limit of 300000 bytes"))
            let wide = try await server.get("/img/_/w:50/plain/\(origin.url("/photos/Aqua.jpg").absoluteString)")
            #expect(wide.status == .unprocessableContent)
            #expect(String(decoding: wide.body, as: UTF8.self).contains("2560 x 1600 pixels"))
            let missing = try await server.get("/img/_/w:50/plain/\(origin.url("/photos/Nope.jpg").absoluteString)")
            #expect(missing.status == .notFound)
            // An origin's 4xx passes through with its status, as imgproxy's; a 5xx is the gateway's.
            origin.set(.status(403), for: "/secret.jpg")
            origin.set(.status(500), for: "/broken.jpg")
            let secret = try await server.get("/img/_/w:50/plain/\(origin.url("/secret.jpg").absoluteString)")
            #expect(secret.status == .forbidden && String(decoding: secret.body, as: UTF8.self).contains("answered 403"))
            let broken = try await server.get("/img/_/w:50/plain/\(origin.url("/broken.jpg").absoluteString)")
            #expect(broken.status == .badGateway && String(decoding: broken.body, as: UTF8.self).contains("answered 500"))
            let notImage = try await server.get("/img/_/w:50/plain/\(origin.url("/README.md").absoluteString)")
            #expect(notImage.status == .unprocessableContent)
        }
    }

    @Test func overloadGets429WhileACacheHitStillAnswers() async throws {
        try await withServer({ $0.filtrationConcurrency = 1; $0.maxWaitingFiltrations = 2 }) { server, origin in
            let cached = "/img/_/w:64/plain/\(origin.url("/photos/Aqua.jpg").absoluteString)@jpg"
            #expect(try await server.get(cached).status == .ok)
            // Heavy work for one filtration slot: photos enlarged to 8000 px
            // PNGs, cancelled (and awaited) once the checks are made.
            try await withThrowingTaskGroup(of: Void.self) { heavy in
                for n in 1...6 {
                    heavy.addTask { _ = try? await server.get("/img/_/w:\(7990 + n)/el:1/plain/\(origin.url("/photos/RainDrops.jpg").absoluteString)@png") }
                }
                #expect(await server.statusBecomes { $0.filtrationsWaiting >= 2 })
                let refused = try await server.get("/img/_/w:65/plain/\(origin.url("/photos/Dune.jpg").absoluteString)@jpg")
                #expect(refused.status == .tooManyRequests)
                #expect(refused.header("Retry-After") != nil)
                let hit = try await server.get(cached)
                #expect(hit.status == .ok)
                heavy.cancelAll()
            }
        }
    }

    @Test func aClientThatDisconnectsCancelsTheWork() async throws {
        try await withLiveServer { server, origin in
            origin.set(.drip(chunk: 2048, every: .milliseconds(100)), for: "/photos/Storm.jpg")
            let path = "/img/_/w:64/plain/\(origin.url("/photos/Storm.jpg").absoluteString)"
            // The client gives up once the download is under way (the origin
            // has the request), closing its connection.
            let client = Task { _ = try? await server.get(path, timeout: .seconds(60)) }
            #expect(await eventually(120) { origin.requests("/photos/Storm.jpg") == 1 }, "the download started")
            client.cancel()
            await client.value
            #expect(await eventually(120) { origin.aborted("/photos/Storm.jpg") == 1 }, "the download was aborted")
            let status = try await server.status()
            #expect(status.downloadsCancelled == 1)
            #expect(status.filtrationsFinished == 0)
        }
    }
}
