import Darkroom
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Testing
import ServerTestSupport
import TestSupport

@Suite struct BookAPITests {
    func waitForState(_ server: RoutedServer, _ id: String, _ states: Set<String>, seconds: Double = 300) async throws -> [String: Any] {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let status = try JSONSerialization.jsonObject(with: try await server.get("/api/books/\(id)").body) as? [String: Any] ?? [:]
            if let state = status["state"] as? String, states.contains(state) { return status }
            try await Task.sleep(for: .milliseconds(50))
        }
        return [:]
    }

    func order(_ server: RoutedServer, _ body: String) async throws -> RoutedServer.Answer {
        try await server.send("/api/books", method: .post, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
    }

    /// The id of an accepted order's book.
    func bookID(_ answer: RoutedServer.Answer) -> String? {
        (try? JSONSerialization.jsonObject(with: answer.body) as? [String: String])?["id"]
    }

    /// Cancels the books `ids` and waits for each to end, so that none is
    /// still using the pipeline when the router stops.
    func cancel(_ server: RoutedServer, _ ids: [String]) async throws {
        for id in ids { _ = try await server.send("/api/books/\(id)", method: .delete) }
        for id in ids { _ = try await waitForState(server, id, ["cancelled", "failed", "done"]) }
    }

    /// A margin of 1e300 once stopped the whole server (an arithmetic trap
    /// turning it into pixels): now a 400 naming the field, and the server
    /// still answers.
    @Test func outOfRangeMarginsAreRefusedAndTheServerLives() async throws {
        try await RoutedServer.with { server in
            for margin in ["1e300", "-1", "1001", "-0.5"] {
                let answer = try await order(server, #"{"rows": [0], "margin": \#(margin)}"#)
                let text = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status == .badRequest, "\(margin): \(answer.status)")
                #expect(text.contains("margin"), "\(margin): \(text)")
            }
            #expect(try await server.get("/health").status == .ok)
        }
    }

    /// With signing on, a list of sources would fetch and process any URL
    /// unsigned: refused, while the gallery's own rows still work.
    @Test func withSigningOnABookTakesGalleryRowsOnly() async throws {
        let signer = try URLSignature(hexKey: "736563726574", hexSalt: "68656C6C6F")
        try await RoutedServer.with({ $0.signature = signer }) { server in
            let refused = try await order(server, #"{"sources": ["http://example.com/a.jpg"]}"#)
            #expect(refused.status == .forbidden)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("rows of the gallery's list only"))
            let mixed = try await order(server, #"{"rows": [0], "sources": ["http://example.com/a.jpg"]}"#)
            #expect(mixed.status == .forbidden)
            let rows = try await order(server, #"{"rows": [0]}"#)
            #expect(rows.status == .accepted)
            try await cancel(server, bookID(rows).map { [$0] } ?? [])
        }
    }

    /// Each book is hundreds of downloads and renders: a client gets two at
    /// a time, and the third is a 429 with a reason, until one ends. (The
    /// router's client has no address: every order is one client's.)
    @Test func unfinishedBooksAreBoundedPerClient() async throws {
        try await RoutedServer.with { server in
            let big = #"{"rows": [\#(Array(repeating: "0", count: 500).joined(separator: ","))]}"#
            var ids: [String] = []
            for _ in 0..<2 {
                let answer = try await order(server, big)
                #expect(answer.status == .accepted)
                ids += [try #require(bookID(answer))]
            }
            let third = try await order(server, big)
            #expect(third.status == .tooManyRequests)
            #expect(third.header("Retry-After") != nil)
            #expect(String(decoding: third.body, as: UTF8.self).contains("2 photobooks"))
            // Once one has ended (cancelled), there is room again.
            _ = try await server.send("/api/books/\(ids[0])", method: .delete)
            _ = try await waitForState(server, ids[0], ["cancelled", "failed", "done"])
            let fourth = try await order(server, big)
            #expect(fourth.status == .accepted)
            try await cancel(server, Array(ids.dropFirst()) + (bookID(fourth).map { [$0] } ?? []))
        }
    }

    /// Each client (by address) has its own 2, and all of them 8 in all: a
    /// client at its bound does not block another, and the ninth book
    /// waits, whoever asks for it.
    @Test func unfinishedBooksAreBoundedInAllAndClientsDoNotBlockEachOther() async throws {
        let server = try await TestServer.start()
        let port = Int(server.base.split(separator: ":").last!)!
        let big = #"{"rows": [\#(Array(repeating: "0", count: 500).joined(separator: ","))]}"#
        func order(from client: Int) async throws -> (status: Int, body: String) {
            try await onOwnThread { try RawHTTP.post("/api/books", json: big, port: port, from: "127.0.0.\(client)") }
        }
        var ids: [String] = []
        func accepted(_ answer: (status: Int, body: String)) throws {
            #expect(answer.status == 202, "\(answer)")
            if let id = (try JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: String])?["id"] { ids.append(id) }
        }
        try accepted(try await order(from: 2))
        try accepted(try await order(from: 2))
        let third = try await order(from: 2)
        #expect(third.status == 429 && third.body.contains("you have 2 photobooks"), "\(third)")
        // Another client is not held back by the first's bound.
        try accepted(try await order(from: 3))
        // Up to 8 in all, from any number of clients...
        for client in 4...6 { for _ in 0..<2 where ids.count < 8 { try accepted(try await order(from: client)) } }
        #expect(ids.count == 8)
        // ...and not a ninth, from a client that has none.
        let ninth = try await order(from: 7)
        #expect(ninth.status == 429 && ninth.body.contains("8 photobooks are being made"), "\(ninth)")
        for id in ids { _ = try await server.send("/api/books/\(id)", method: .DELETE) }
        await server.stop()
    }

    @Test func aBookOfGalleryRowsEndToEnd() async throws {
        let downloads = try Fixtures.temporaryFolder("darkroom-book-download")
        defer { try? FileManager.default.removeItem(at: downloads) }
        try await RoutedServer.with { server in
            let answer = try await order(server, #"{"rows": [0, 1, 2], "page": "A4", "captions": true}"#)
            #expect(answer.status == .accepted)
            let id = try #require(bookID(answer))
            #expect(answer.header("Location") == "/api/books/\(id)")

            let done = try await waitForState(server, id, ["done", "failed", "cancelled"])
            #expect(done["state"] as? String == "done", "\(done)")
            #expect(done["total"] as? Int == 3 && done["written"] as? Int == 3)

            let pdf = try await server.get("/api/books/\(id)/pdf")
            #expect(pdf.status == .ok)
            #expect(pdf.header("Content-Type") == "application/pdf")
            let file = downloads.appendingPathComponent("downloaded.pdf")
            try pdf.body.write(to: file)
            #expect(try await runTool("/usr/bin/pdfinfo", [file.path]).output.contains("Pages:           3"))

            // The event stream of a finished book gives its final state, then ends.
            let events = String(decoding: try await server.get("/api/books/\(id)/events").body, as: UTF8.self)
            #expect(events.contains("event: book") && events.contains("\"state\":\"done\""))
        }
    }

    @Test func cancellingABook() async throws {
        try await RoutedServer.with { server in
            // Forty distinct sources (a query string each), so there is work to cancel.
            let sources = (0..<40).map { "\"local:///photos/Dune.jpg?copy=\($0)\"" }.joined(separator: ",")
            let answer = try await order(server, #"{"sources": [\#(sources)], "page": "2400x3400"}"#)
            let id = try #require(bookID(answer))
            _ = try await waitForState(server, id, ["preparing", "writing"])
            #expect(try await server.send("/api/books/\(id)", method: .delete).status == .noContent)
            let ended = try await waitForState(server, id, ["done", "failed", "cancelled"])
            #expect(ended["state"] as? String == "cancelled", "\(ended)")
            #expect(try await server.get("/api/books/\(id)/pdf").status == .conflict)
        }
    }

    @Test(arguments: [
        #"{"rows": []}"#, #"{"rows": [99]}"#, #"{"sources": ["ftp://x.org/a.jpg"]}"#,
        #"{"rows": [0], "page": "A9"}"#, #"{"rows": [0], "filter": "vintage"}"#,
    ])
    func badOrdersAre400(body: String) async throws {
        try await RoutedServer.with { server in
            let answer = try await order(server, body)
            #expect(answer.status == .badRequest, "\(body)")
            #expect(try await server.get("/api/books/nope").status == .notFound)
        }
    }
}
