@testable import DarkroomServer
import Foundation
import Testing
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
        defer { try? FileManager.default.removeItem(at: root) }
        let names = ["slow-first-byte", "drip", "reset", "truncated", "loop", "metadata", "flaky", "always-503", "gone"]
        for name in names {
            try FileManager.default.copyItem(at: Fixtures.url("landscape.jpg"), to: root.appendingPathComponent("\(name).jpg"))
        }
        try FileManager.default.copyItem(at: Fixtures.url("page.html"), to: root.appendingPathComponent("page.html"))
        // The two that hold a connection until the download limit stops
        // them come from an origin of their own, through a server of their
        // own whose limit is 2 s: the origin would hold them for minutes,
        // so an answer that says "time" shows the limit stopped them. The
        // quick faults go through a server whose limit no fetch of a small
        // file reaches on a busy machine, so that each gets its own status.
        try await RoutedServer.withOrigin(serving: root, { $0.downloadTimeout = .seconds(2) }) { limited, slowOrigin in
            let slow: Set<String> = ["/slow-first-byte.jpg", "/drip.jpg"]
            try await RoutedServer.withOrigin(serving: root, { $0.downloadTimeout = .seconds(300) }) { server, origin in
                let cases = [
                    Case(path: "/slow-first-byte.jpg", behaviour: .delay(.seconds(600)), statuses: [504], words: "time"),
                    // 7,647 bytes, 16 a second: eight minutes.
                    Case(path: "/drip.jpg", behaviour: .drip(chunk: 16, every: .seconds(1)), statuses: [504], words: "time"),
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
                func serverOf(_ c: Case) -> RoutedServer { slow.contains(c.path) ? limited : server }
                for c in cases {
                    if let behaviour = c.behaviour { originOf(c).set(behaviour, for: c.path) }
                }
                let unresolvable = "/img/_/w:50/plain/http://darkroom-test.invalid/photo.jpg@png"

                // Each request waits at most 5 minutes: far past every limit at
                // work here, and far short of what the slow origin holds back.
                let results = try await withThrowingTaskGroup(of: (String, Int, String).self) { group in
                    for c in cases {
                        let path = "/img/_/w:50/plain/\(originOf(c).url(c.path).absoluteString)@png"
                        let target = serverOf(c)
                        group.addTask {
                            let answer = try await target.get(path, within: .seconds(300))
                            return (c.path, Int(answer.status.code), String(decoding: answer.body, as: UTF8.self))
                        }
                    }
                    group.addTask {
                        let answer = try await limited.get(unresolvable, within: .seconds(300))
                        return ("unresolvable", Int(answer.status.code), String(decoding: answer.body, as: UTF8.self))
                    }
                    var all: [String: (Int, String)] = [:]
                    for try await (name, status, body) in group { all[name] = (status, body) }
                    return all
                }

                for c in cases {
                    let (status, body) = try #require(results[c.path])
                    #expect(c.statuses.contains(status), "\(c.path): \(status) \(body)")
                    if let words = c.words { #expect(body.lowercased().contains(words), "\(c.path): \(body)") }
                }
                let (status, body) = try #require(results["unresolvable"])
                #expect(status == 502 || status == 504, "unresolvable: \(status) \(body)")

                // Nothing is left running or waiting.
                for each in [server, limited] {
                    #expect(await each.statusBecomes(120) { $0.downloadsRunning == 0 && $0.downloadsWaiting == 0 && $0.filtrationsRunning == 0 && $0.filtrationsWaiting == 0 })
                }
                let metrics = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
                #expect(metrics.contains("darkroom_image_requests_in_progress 0"), "\(metrics.split(separator: "\n").filter { $0.contains("in_progress") })")
            }
        }
    }
}
