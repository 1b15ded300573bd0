@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// An origin that misbehaves in every way at once: each request ends within
/// its limit with the status that says what happened, and the queues drain.
struct OriginFaultsTests {
    struct Case: Sendable {
        var path: String
        var behaviour: OriginServer.Behaviour?
        var statuses: Set<Int>
        var words: String?
    }

    @Test func everyFaultEndsWithinItsLimitWithItsStatusAndTheQueuesDrain() async throws {
        // A photo under each name, so that only the fault stands between
        // the client and an answer.
        let root = try Fixtures.temporaryFolder("darkroom-faults")
        let names = ["slow-first-byte", "drip", "reset", "truncated", "loop", "metadata", "flaky", "always-503", "gone"]
        for name in names {
            try FileManager.default.copyItem(at: Fixtures.url("landscape.jpg"), to: root.appendingPathComponent("\(name).jpg"))
        }
        try FileManager.default.copyItem(at: Fixtures.url("page.html"), to: root.appendingPathComponent("page.html"))
        // The two that hold a connection for their whole time limit, each
        // try, come from an origin of their own: the server keeps a few
        // connections per origin, and the quick faults must not wait behind
        // them for one (on a loaded machine, that wait alone passed 2 s).
        let slowOrigin = try await OriginServer.start(serving: root)
        defer { Task { await slowOrigin.stop() } }
        let slow: Set<String> = ["/slow-first-byte.jpg", "/drip.jpg"]
        try await TestServer.withOrigin(serving: root, {
            $0.downloadTimeout = .seconds(2)
            $0.trustedOrigins.append(slowOrigin.url("/").absoluteString)
        }) { server, origin in
            let cases = [
                Case(path: "/slow-first-byte.jpg", behaviour: .delay(.seconds(30)), statuses: [504], words: "time"),
                Case(path: "/drip.jpg", behaviour: .drip(chunk: 64, every: .milliseconds(400)), statuses: [504], words: "time"),
                Case(path: "/reset.jpg", behaviour: .resetFirst(times: 1000, afterBytes: 2000), statuses: [502], words: nil),
                Case(path: "/truncated.jpg", behaviour: .truncate(3000), statuses: [502], words: nil),
                Case(path: "/loop.jpg", behaviour: .redirect("/loop.jpg"), statuses: [502], words: "redirect"),
                Case(path: "/metadata.jpg", behaviour: .redirect("http://169.254.169.254/latest/meta-data"), statuses: [404], words: nil),
                Case(path: "/flaky.jpg", behaviour: .failFirst(times: 2, status: 503), statuses: [200], words: nil),
                Case(path: "/always-503.jpg", behaviour: .status(503), statuses: [502], words: "503"),
                Case(path: "/gone.jpg", behaviour: .status(404), statuses: [404], words: nil),
                Case(path: "/page.html", behaviour: nil, statuses: [422], words: "not an image"),
            ]
            func originOf(_ c: Case) -> OriginServer { slow.contains(c.path) ? slowOrigin : origin }
            for c in cases {
                if let behaviour = c.behaviour { originOf(c).set(behaviour, for: c.path) }
            }
            let unresolvable = "/img/_/w:50/plain/http://darkroom-test.invalid/photo.jpg@png"

            let results = try await withThrowingTaskGroup(of: (String, Int, String, Duration).self) { group in
                for c in cases {
                    let path = "/img/_/w:50/plain/\(originOf(c).url(c.path).absoluteString)@png"
                    group.addTask {
                        let started = ContinuousClock.now
                        let answer = try await server.get(path, timeout: .seconds(60))
                        return (c.path, Int(answer.status.code), String(decoding: answer.body, as: UTF8.self), ContinuousClock.now - started)
                    }
                }
                group.addTask {
                    let started = ContinuousClock.now
                    let answer = try await server.get(unresolvable, timeout: .seconds(60))
                    return ("unresolvable", Int(answer.status.code), String(decoding: answer.body, as: UTF8.self), ContinuousClock.now - started)
                }
                var all: [String: (Int, String, Duration)] = [:]
                for try await (name, status, body, elapsed) in group { all[name] = (status, body, elapsed) }
                return all
            }

            for c in cases {
                let (status, body, elapsed) = try #require(results[c.path])
                #expect(c.statuses.contains(status), "\(c.path): \(status) \(body)")
                if let words = c.words { #expect(body.lowercased().contains(words), "\(c.path): \(body)") }
                // The download limit is 2 s a try, and transient failures are
                // tried a few times with short pauses.
                #expect(elapsed < .seconds(20), "\(c.path) took \(elapsed)")
            }
            let (status, body, elapsed) = try #require(results["unresolvable"])
            #expect(status == 502 || status == 504, "unresolvable: \(status) \(body)")
            #expect(elapsed < .seconds(20))

            // Nothing is left running or waiting.
            #expect(await server.statusBecomes(10) { $0.downloadsRunning == 0 && $0.downloadsWaiting == 0 && $0.filtrationsRunning == 0 && $0.filtrationsWaiting == 0 })
            let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains("darkroom_image_requests_in_progress 0"), "\(metrics.split(separator: "\n").filter { $0.contains("in_progress") })")
        }
    }
}
