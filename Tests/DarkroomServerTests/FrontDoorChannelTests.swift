import Darkroom
@testable import DarkroomServer
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdTesting
import Logging
import NIOCore
import NIOEmbedded
import Testing
import TestSupport

/// The front door's handlers, in the order the server puts them on a
/// connection (``ImageServerChannel``), on an `EmbeddedChannel`: bytes in,
/// bytes out, no socket. A URL is first answered by the router (a miss,
/// which parses it and keeps its image in memory); the same routes then
/// answer the hit on the channel's loop, and the two answers are compared.
/// What needs sockets (timeouts, closes, floods) stays in the live tests.
@Suite struct FrontDoorChannelTests {
    static let origin = "https://pages.example"
    static let path = "/img/_/rs:fit:40:40/plain/local:///photos/Aqua.jpg@jpg"

    /// An answer as the client reads it off the connection.
    struct Answer {
        var status: Int
        var fields: [(name: String, value: String)]
        var body: [UInt8]

        func field(_ name: String) -> String? { fields.first { $0.name.lowercased() == name.lowercased() }?.value }
        func count(_ name: String) -> Int { fields.filter { $0.name.lowercased() == name.lowercased() }.count }
    }

    /// The routes, warmed by one miss through the router; the miss's answer.
    func warmRoutes(_ test: @escaping @Sendable (ImageRoutes, RoutedServer.Answer) async throws -> Void) async throws {
        // A Server name of the operator's (imgproxy's IMGPROXY_SERVER_NAME).
        try await withRoutes({ $0.allowOrigin = Self.origin; $0.serverName = Self.serverName }) { routes, client in
            let miss = try await RoutedServer(client: client).get(Self.path)
            try #require(miss.status == .ok)
            try await test(routes, miss)
        }
    }

    /// Writes `requests` (raw HTTP/1 bytes) into a new connection with the
    /// server's handlers and reads every answer the front door writes
    /// itself; whether the channel is still open after.
    /// Synchronous: an embedded loop is used from the thread that made it.
    func exchange(_ requests: String, routes: ImageRoutes) throws -> (answers: [Answer], open: Bool) {
        let channel = EmbeddedChannel()
        channel.remoteAddress = try SocketAddress(ipAddress: "127.0.0.1", port: 40000)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        let metrics = ServerMetrics()
        let door = ImageServerChannel(base: HTTP1Channel(responder: { _, _, _ in }), images: routes, fields: routes.fields,
                                      recorder: RequestRecorder(factory: metrics.factory, accessLog: nil),
                                      timeouts: ServerConfiguration().connectionTimeouts, limits: ConnectionLimits())
        var failure: (any Error)?
        door.setup(channel: channel, logger: Logger(label: "darkroom-test")).whenFailure { failure = $0 }
        channel.embeddedEventLoop.run()
        if let failure { throw failure }
        try channel.writeInbound(ByteBuffer(string: requests))
        channel.embeddedEventLoop.run()
        var bytes: [UInt8] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { bytes += Array(buffer.readableBytesView) }
        let open = channel.isActive
        _ = try? channel.finish()
        return (try Self.answers(in: bytes), open)
    }

    /// The HTTP/1 answers in `bytes`, each framed by its Content-Length.
    static func answers(in bytes: [UInt8]) throws -> [Answer] {
        var answers: [Answer] = []
        var rest = bytes[...]
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        while !rest.isEmpty {
            guard let end = rest.indices.first(where: { rest[$0...].starts(with: separator) }) else {
                throw FrontDoorTestError("an answer's head never ends: \(String(decoding: rest.prefix(200), as: UTF8.self))")
            }
            let lines = String(decoding: rest[..<end], as: UTF8.self).components(separatedBy: "\r\n")
            let status = lines[0].split(separator: " ")
            guard status.count >= 2, status[0].hasPrefix("HTTP/1."), let code = Int(status[1]) else {
                throw FrontDoorTestError("not a status line: \(lines[0])")
            }
            let fields = lines.dropFirst().map { line -> (name: String, value: String) in
                let colon = line.firstIndex(of: ":") ?? line.endIndex
                return (String(line[..<colon]), line[colon...].dropFirst().trimmingCharacters(in: .whitespaces))
            }
            var answer = Answer(status: code, fields: fields, body: [])
            let length = answer.field("Content-Length").flatMap(Int.init) ?? 0
            let bodyStart = end + separator.count
            guard rest.endIndex - bodyStart >= length else { throw FrontDoorTestError("a body shorter than its Content-Length") }
            answer.body = Array(rest[bodyStart..<(bodyStart + length)])
            answers.append(answer)
            rest = rest[(bodyStart + length)...]
        }
        return answers
    }

    static let serverName = "images-front/1"

    static func get(_ target: String, _ fields: String = "") -> String {
        "GET \(target) HTTP/1.1\r\nHost: images.example\r\n\(fields)\r\n"
    }

    @Test func aHitIsAnsweredOnTheLoopAsTheRouterAnsweredTheMiss() async throws {
        try await warmRoutes { routes, miss in
            let (answers, open) = try exchange(Self.get(Self.path, "X-Request-ID: carried-by-the-proxy\r\n"), routes: routes)
            try #require(answers.count == 1)
            let hit = answers[0]
            #expect(hit.status == 200 && open)
            #expect(hit.body == Array(miss.body) && !hit.body.isEmpty)
            for name in ["ETag", "Cache-Control", "Content-Type", "Content-Length", "Content-Disposition", "X-Content-Type-Options",
                         "Access-Control-Allow-Origin", "Access-Control-Allow-Methods"] {
                #expect(hit.field(name) == miss.header(name), "\(name)")
                #expect(hit.count(name) == 1, "\(name) once")
            }
            // The front door's own fields, each once: the router's answers
            // get Date and Server from Hummingbird as it writes them.
            #expect(hit.field("X-Request-ID") == "carried-by-the-proxy")
            #expect(hit.field("Server") == Self.serverName && hit.count("Server") == 1)
            #expect(hit.field("Date").map(HTTPDate.isValid) == true && hit.count("Date") == 1)
            #expect(hit.field("Access-Control-Allow-Origin") == Self.origin)
        }
    }

    @Test func aConditionalHitIsA304AndAnUnknownURLGoesOn() async throws {
        try await warmRoutes { routes, miss in
            let etag = try #require(miss.header("ETag"))
            let (answers, _) = try exchange(Self.get(Self.path, "If-None-Match: \(etag)\r\n"), routes: routes)
            try #require(answers.count == 1)
            #expect(answers[0].status == 304 && answers[0].body.isEmpty && answers[0].field("ETag") == etag)
            #expect(answers[0].field("X-Request-ID").map(RequestID.isUsable) == true, "a new id")
            // Not parsed before, or not an image URL: left to the router,
            // so nothing is written here.
            for target in ["/img/_/rs:fit:41:41/plain/local:///photos/Aqua.jpg@jpg", "/health"] {
                let (others, open) = try exchange(Self.get(target), routes: routes)
                #expect(others.isEmpty && open, "\(target)")
            }
        }
    }

    @Test func answersKeepTheirOrderOnAConnection() async throws {
        try await warmRoutes { routes, _ in
            // A hit behind a request the router is answering waits its turn
            // there: nothing is written ahead of the first answer.
            let (answers, _) = try exchange(Self.get("/health") + Self.get(Self.path), routes: routes)
            #expect(answers.isEmpty)
            // Two hits in one read: both answered, in order.
            let (twice, open) = try exchange(Self.get(Self.path) + Self.get(Self.path, "X-Request-ID: second\r\n"), routes: routes)
            #expect(twice.map(\.status) == [200, 200] && open)
            #expect(twice.last?.field("X-Request-ID") == "second")
        }
    }

    @Test func aRequestTheFrontDoorRefusesCarriesItsFieldsAndCloses() async throws {
        try await warmRoutes { routes, _ in
            // HTTP/1.1 without Host: refused here with a 400, whatever the URL.
            let (answers, open) = try exchange("GET \(Self.path) HTTP/1.1\r\n\r\n", routes: routes)
            try #require(answers.count == 1)
            #expect(answers[0].status == 400 && !open)
            #expect(String(decoding: answers[0].body, as: UTF8.self).contains("Host"))
            #expect(answers[0].field("Server") == Self.serverName && answers[0].field("Date").map(HTTPDate.isValid) == true)
            let (long, _) = try exchange(Self.get(Self.path + "?" + String(repeating: "a", count: 17_000)), routes: routes)
            #expect(long.map(\.status) == [414])
        }
    }
}

struct FrontDoorTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
