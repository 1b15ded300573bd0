@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// Thousands of distinct long URLs for refused sources, each with a long
/// Accept header, as a stranger would send them: every one is refused
/// with the same 404, the memory of failures and the parsed-URL cache
/// stay within their bounds (read from /metrics), nothing is written to
/// the disk cache, and `/health` answers throughout. Nothing connects:
/// the sources are refused by address before any connection.
@Suite(.offCooperativePool) struct FrontDoorFloodTests {
    static func gauge(_ name: String, in text: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return line.split(separator: " ").last.flatMap { Double($0) }.map { Int($0) }
        }
        return nil
    }

    static func files(in folder: URL) -> Int {
        (FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?.allObjects.count) ?? 0
    }

    @Test func refusedLongURLsStayWithinTheirBudgets() async throws {
        let server = try await TestServer.start()
        try await cleaningUp({ await server.stop() }) { () async throws in
            let filesBefore = Self.files(in: server.cacheFolder)
            let padding = String(repeating: "a", count: 15_000)
            let accept = (0..<300).map { "x-\($0)/y" }.joined(separator: ",")
            for index in 0..<600 {
                let answer = try await server.get("/img/_/rs:fit:20:20/plain/http://10.0.0.1/\(index)\(padding).jpg",
                                                  headers: [("Accept", "image/webp,\(accept),z/\(index)")])
                #expect(answer.status == .notFound, "\(index): \(answer.status)")
                if index % 200 == 0 { #expect(try await server.get("/health").status == .ok) }
            }
            let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            let failures = try #require(Self.gauge("darkroom_failure_memory_bytes", in: metrics))
            let failureLimit = try #require(Self.gauge("darkroom_failure_memory_limit_bytes", in: metrics))
            let parsed = try #require(Self.gauge("darkroom_parsed_url_cache_bytes", in: metrics))
            let parsedLimit = try #require(Self.gauge("darkroom_parsed_url_cache_limit_bytes", in: metrics))
            #expect(failures > 0 && failures <= failureLimit, "failure memory \(failures) of \(failureLimit)")
            #expect(parsed > 0 && parsed <= parsedLimit, "parsed URLs \(parsed) of \(parsedLimit)")
            // 600 x 15 KB URLs would be 9 MB kept in each, twice in the parsed
            // cache, and the Accept headers 12 MB more.
            #expect(failures < 4 << 20 && parsed <= 8 << 20)
            #expect(Self.files(in: server.cacheFolder) == filesBefore, "failures were written to the disk cache")
            #expect(try await server.get("/health").status == .ok)
        }
    }
}
