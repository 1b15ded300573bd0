import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// Client hints as imgproxy reads them with `IMGPROXY_ENABLE_CLIENT_HINTS`:
/// the hinted ratio and width stand for the URL's where it sets none, the
/// answer varies by them, and each hint is its own cached answer.
struct ClientHintsTests {
    @Test func hintsAreReadAsImgproxyReadsThem() {
        func hints(_ fields: [String: String]) -> ClientHints { ClientHints { fields[$0] } }
        #expect(hints(["dpr": "2"]) == ClientHints(dpr: 2))
        #expect(hints(["dpr": "3.0", "sec-ch-dpr": "2.5"]) == ClientHints(dpr: 2.5), "Sec-CH-DPR first, as imgproxy's test")
        #expect(hints(["dpr": "10.0"]).isEmpty, "over 8 is ignored")
        #expect(hints(["sec-ch-dpr": "nan", "dpr": "1.5"]) == ClientHints(dpr: 1.5), "a bad one gives way to the next")
        #expect(hints(["dpr": "0"]).isEmpty && hints(["dpr": "-1"]).isEmpty && hints(["dpr": "inf"]).isEmpty)
        #expect(hints(["width": "300", "sec-ch-width": "400"]) == ClientHints(width: 400))
        #expect(hints(["width": "0"]).isEmpty && hints(["width": "abc"]).isEmpty && hints(["width": "1000001"]).isEmpty)
        #expect(ClientHints(dpr: 2, width: 301).cssWidth == 151, "rounded as imgproxy's Shrink")
        // A ratio near 0 is above 0, as imgproxy takes it: the width stays in range.
        #expect(hints(["dpr": "1e-300", "width": "1000"]).cssWidth == 100_000)
    }

    @Test func hintedRatioAndWidthAsImgproxyAnswersThem() async throws {
        try await TestServer.withOrigin(serving: Fixtures.folder, { $0.clientHints = true }) { server, origin in
            let source = origin.url("/landscape.jpg").absoluteString
            func width(_ options: String, _ headers: [(String, String)]) async throws -> (Int, String?) {
                let answer = try await server.get("/_/\(options)/plain/\(source)@png", headers: headers)
                #expect(answer.status == .ok, "\(options) \(headers)")
                return (try ImageSize.of(answer.body).width, answer.header("Vary"))
            }
            // The issue's case: DPR 2 with w:100 is 200 pixels, as imgproxy answers.
            let (doubled, vary) = try await width("w:100", [("DPR", "2")])
            #expect(doubled == 200)
            #expect(vary == "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
            // The hinted width, in device pixels, where the URL sets none.
            #expect(try await width("q:80", [("Width", "120")]).0 == 120)
            #expect(try await width("q:80", [("Sec-CH-Width", "90"), ("Sec-CH-DPR", "1.5")]).0 == 90)
            // The URL's own width wins over the hint, and its dpr over the hinted one.
            #expect(try await width("w:50", [("Width", "120")]).0 == 50)
            #expect(try await width("w:50/dpr:1", [("DPR", "2")]).0 == 50)
            // Each hint is its own answer, the second time too (a hit).
            for _ in 0..<2 {
                #expect(try await width("w:60", [("DPR", "1")]).0 == 60)
                #expect(try await width("w:60", [("DPR", "3")]).0 == 180)
            }
            // A ratio near 0 does not break the server.
            let tiny = try await server.get("/_/q:80/plain/\(source)@png", headers: [("DPR", "5e-324"), ("Width", "1000")])
            #expect(tiny.status == .ok || tiny.status.code == 422, "\(tiny.status)")
            #expect(try await server.get("/health").status == .ok)
            // Negotiated answers vary by Accept as well.
            let negotiated = try await server.get("/_/w:60/plain/\(source)", headers: [("Accept", "image/webp"), ("DPR", "2")])
            #expect(negotiated.header("Vary") == "Accept, Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width")
        }
        // Off, as by default in imgproxy: hints change nothing.
        try await TestServer.withOrigin(serving: Fixtures.folder) { server, origin in
            let answer = try await server.get("/_/w:100/plain/\(origin.url("/landscape.jpg").absoluteString)@png", headers: [("DPR", "2")])
            #expect(try ImageSize.of(answer.body).width == 100 && answer.header("Vary") == nil)
        }
    }
}
