@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// Connections that hold the server without asking anything of it are
/// closed, and no client holds more than its share: an idle connection
/// after the keep-alive timeout, a request head sent a line at a time
/// after the read timeout; past the connection limits a new connection is
/// answered 503 and closed; HTTP/1.0 is answered as 1.0; and `/health`
/// answers throughout. The sockets are the tests' own, on loopback.
@Suite(.offCooperativePool) struct ConnectionTests {
    @Test func idleAndSlowConnectionsAreClosedWhileHealthAnswers() async throws {
        let server = try await TestServer.start {
            $0.keepAliveTimeout = .seconds(1)
            $0.readRequestTimeout = .seconds(2)
        }
        try await cleaningUp({ await server.stop() }) { () async throws in
            let started = Date()
            let silent = try RawHTTP.Connection(port: server.port)
            let slow = try RawHTTP.Connection(port: server.port)
            slow.send("GET /health HTTP/1.1\r\n")
            // A header line every 300 ms, as a slow client sends them, until
            // the server ends the connection (or a minute passes).
            var lines = 0
            while !slow.read(waiting: 0.3), Date().timeIntervalSince(started) < 60 {
                slow.send("X-Line-\(lines): \(String(repeating: "a", count: 10))\r\n")
                lines += 1
            }
            #expect(slow.closedByServer, "a head sent a line at a time was not cut off")
            #expect(slow.text.isEmpty, "nothing is answered to an unfinished head: \(slow.text)")
            #expect(Date().timeIntervalSince(started) >= 2, "closed before its read timeout")
            #expect(silent.waitForClose(within: 60), "a connection that never sent a byte stayed open")

            // A kept-alive connection: answered, then closed once idle.
            let kept = try RawHTTP.Connection(port: server.port)
            kept.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            #expect(kept.waitForClose(within: 60), "an idle kept-alive connection stayed open")
            #expect(kept.text.hasPrefix("HTTP/1.1 200"), "\(kept.text.prefix(100))")
            #expect(try await server.get("/health").status == .ok)
        }
    }

    @Test func httpOnePointZeroIsAnsweredAsItAndClosed() async throws {
        let server = try await TestServer.start { $0.keepAliveTimeout = .seconds(600) }
        try await cleaningUp({ await server.stop() }) { () async throws in
            let old = try RawHTTP.Connection(port: server.port)
            old.send("GET /health HTTP/1.0\r\n\r\n")
            #expect(old.waitForClose(within: 60), "an HTTP/1.0 connection without keep-alive stayed open")
            #expect(old.text.hasPrefix("HTTP/1.0 200"), "\(old.text.prefix(100))")
            // With keep-alive asked, it stays open for another request: a
            // second one on it is answered too.
            let kept = try RawHTTP.Connection(port: server.port)
            kept.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(kept.waitFor("\"status\"", within: 60) && kept.text.hasPrefix("HTTP/1.0 200"), "\(kept.text.prefix(100))")
            #expect(kept.send("GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))
            #expect(kept.waitFor("HTTP/1.0 200", count: 2, within: 60), "\(kept.text)")
            // HTTP/1.1 with Connection: close is closed after its answer too.
            let closing = try RawHTTP.Connection(port: server.port)
            closing.send("GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            #expect(closing.waitForClose(within: 60) && closing.text.hasPrefix("HTTP/1.1 200"))
        }
    }

    @Test func anHTTPOnePointOneRequestWithoutHostIsRefused() async throws {
        let server = try await TestServer.start()
        try await cleaningUp({ await server.stop() }) { () async throws in
            let connection = try RawHTTP.Connection(port: server.port)
            connection.send("GET /health HTTP/1.1\r\n\r\n")
            #expect(connection.waitForClose(within: 60))
            #expect(connection.text.hasPrefix("HTTP/1.1 400") && connection.text.contains("Host"), "\(connection.text)")
        }
    }

    /// A target past 16 KiB is a 414 before any of it is parsed or kept;
    /// one just under is an image URL as any other.
    @Test func aRequestTargetPastTheLimitIs414() async throws {
        let server = try await TestServer.start()
        try await cleaningUp({ await server.stop() }) { () async throws in
            let long = "/img/_/cb:" + String(repeating: "a", count: 16_384) + "/plain/http://10.0.0.1/a.jpg"
            let answer = try await server.get(long)
            #expect(answer.status == .uriTooLong, "\(answer.status)")
            #expect(String(decoding: answer.body, as: UTF8.self).contains("over the limit of 16384"))
            let under = "/img/_/cb:" + String(repeating: "a", count: 16_000) + "/plain/http://10.0.0.1/a.jpg"
            #expect(try await server.get(under).status == .notFound, "a refused source, as imgproxy answers it")
            #expect(try await server.get("/health").status == .ok)
        }
    }

    @Test func connectionsPastTheirLimitsAreRefusedAndTheRestServed() async throws {
        let server = try await TestServer.start {
            // Five in all: the test client's own connection (kept alive
            // since the server's start) is one of them.
            $0.connections = .init(maxConnections: 5, maxPerClient: 2)
            $0.keepAliveTimeout = .seconds(600)
            $0.readRequestTimeout = .seconds(600)
        }
        try await cleaningUp({ await server.stop() }) { () async throws in
            // Each connection is known to be held once it has been answered:
            // the server may take connections that arrive together in any order.
            func held(from source: String) async throws -> RawHTTP.Connection {
                let connection = try RawHTTP.Connection(port: server.port, from: source)
                connection.send("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
                let answered = await eventually(60) { connection.read(waiting: 0.2) || connection.text.contains("\r\n\r\n") }
                #expect(answered && connection.text.hasPrefix("HTTP/1.1 200"), "\(source): \(connection.text.prefix(100))")
                return connection
            }
            // Two from one address are held; the third is refused at once.
            let first = [try await held(from: "127.0.0.2"), try await held(from: "127.0.0.2")]
            let third = try RawHTTP.Connection(port: server.port, from: "127.0.0.2")
            #expect(third.waitForClose(within: 60))
            #expect(third.text.hasPrefix("HTTP/1.1 503") && third.text.contains("this address holds its most connections (2)"), "\(third.text)")
            // Connections from other addresses fill the server (with the test
            // client's own, while it keeps one): the one past five is refused.
            var second: [RawHTTP.Connection] = []
            var refusal: String?
            for index in 0..<6 {
                let connection = try RawHTTP.Connection(port: server.port, from: "127.0.1.\(index + 1)")
                connection.send("GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
                _ = await eventually(60) { connection.read(waiting: 0.2) || connection.text.contains("\r\n\r\n") }
                if connection.text.hasPrefix("HTTP/1.1 503") {
                    refusal = connection.text
                    #expect(connection.waitForClose(within: 60), "a refused connection stays open")
                    break
                }
                #expect(connection.text.hasPrefix("HTTP/1.1 200"), "\(connection.text.prefix(100))")
                second.append(connection)
            }
            #expect(refusal?.contains("the server holds its most connections (5)") == true, "\(refusal ?? "none refused")")
            #expect(second.count <= 3, "\(second.count) more were held beside the first two")
            // Once some close, there is room again.
            for connection in first + second { connection.hangUp() }
            #expect(await eventually(60) {
                guard let again = try? RawHTTP.Connection(port: server.port, from: "127.0.0.4") else { return false }
                again.send("GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                return again.waitForClose(within: 10) && again.text.hasPrefix("HTTP/1.1 200")
            })
        }
    }
}
