import Darkroom
@testable import DarkroomServer
import Foundation
import Testing
import ServerTestSupport
import TestSupport

/// The gallery in a real browser: headless Chromium.
@Suite(.serialized) struct GalleryBrowserTests {
    /// A 30-row list over a local origin: row i is `/rows/row-i.jpg`, a link
    /// to a corpus photo; rows 1 and 2 are the seed's two wrong entries.
    func makeOrigin() async throws -> (OriginServer, URL, String) {
        let folder = try Fixtures.temporaryFolder("darkroom-gallery-origin")
        let rows = folder.appendingPathComponent("rows")
        try FileManager.default.createDirectory(at: rows, withIntermediateDirectories: true)
        let photos = Corpus.photos
        try #require(!photos.isEmpty, "the corpus is missing: \(Corpus.photosFolder.path)")
        for i in 0..<30 {
            try FileManager.default.createSymbolicLink(at: rows.appendingPathComponent("row-\(i).jpg"), withDestinationURL: photos[i % photos.count])
        }
        try "not a photo\n".write(to: rows.appendingPathComponent("notes.txt"), atomically: true, encoding: .utf8)
        let origin = try await OriginServer.start(serving: folder)
        let entries = (0..<30).map { i -> [String: String] in
            switch i {
            case 1: return ["name": "Missing Photo", "url": origin.url("/rows/missing.jpg").absoluteString]
            case 2: return ["name": "Not A Photo", "url": origin.url("/rows/notes.txt").absoluteString]
            default: return ["name": "Photo \(i)", "url": origin.url("/rows/row-\(i).jpg").absoluteString]
            }
        }
        let list = folder.appendingPathComponent("list.json")
        try JSONSerialization.data(withJSONObject: entries).write(to: list)
        return (origin, folder, list.path)
    }

    func states(_ browser: WebDriver) async throws -> [String: String] {
        (try await browser.run("return window.darkroom ? window.darkroom.state.states : {}") as? [String: String]) ?? [:]
    }

    func until(_ seconds: Double = 120, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if try await condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return false
    }

    /// The origin, the server and the browser are ended on every path: a
    /// browser that does not start fails this test alone.
    @Test func theGalleryFollowsWhatIsVisible() async throws {
        let (origin, folder, list) = try await makeOrigin()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await cleaningUp({ await origin.stop() }) {
            let server = try await TestServer.start { c in
                c.list = list
                c.trustedOrigins = [origin.url("/").absoluteString]
            }
            try await cleaningUp({ await server.stop() }) {
                try await WebDriver.with { browser in
                    try await followsWhatIsVisible(browser, server: server, origin: origin)
                }
            }
        }
    }

    func followsWhatIsVisible(_ browser: WebDriver, server: TestServer, origin: OriginServer) async throws {
        try await browser.open(server.base + "/")
        #expect(try await until { (try await browser.run("return document.querySelectorAll('.row').length") as? Int) == 30 }, "the page lists the rows")

        // The rows on screen reach their end states; the wrong ones fail.
        let done = try await until {
            let s = try await states(browser)
            return s["0"] == "filtered" && s["1"] == "failed" && s["2"] == "failed" && s["3"] == "filtered"
        }
        let seen = try await states(browser)
        #expect(done, "visible rows filtered: \(seen)")
        let failedText = try await browser.run("return document.querySelector('.row[data-row=\"1\"] .state').textContent") as? String
        #expect(failedText == "Failed to load")
        let failedImage = try await browser.run("return document.querySelector('.row[data-row=\"2\"] img').getAttribute('src')") as? String
        #expect(failedImage == "/gallery/failure.svg")
        let filteredImage = try await browser.run("return document.querySelector('.row[data-row=\"0\"] img').naturalWidth") as? Int
        #expect((filteredImage ?? 0) > 0, "the sepia image is shown")
        try await browser.screenshot(to: Corpus.packageRoot.appendingPathComponent(".build/test-artifacts/gallery.png"))

        // Rows far below have started nothing.
        for row in 20..<30 {
            #expect(origin.requests("/rows/row-\(row).jpg") == 0, "row \(row) is far below")
        }

        // Rows 12 to 16 download slowly; scroll to them, let their work
        // start, then scroll past them to the end. (Only these five: with the
        // prefetched rows 11 and 17 slow too, seven slow downloads would fill
        // the download queue's six slots and one visible row would wait.)
        // A kilobyte every half second: minutes for each, so they are
        // surely under way when the page scrolls past them.
        for row in 12..<17 { origin.set(.drip(chunk: 1024, every: .milliseconds(500)), for: "/rows/row-\(row).jpg") }
        try await browser.run("window.scrollTo(0, document.querySelector('.row[data-row=\"13\"]').offsetTop - 40)")
        let slow = Array(12..<17)
        let started = try await until(120) { slow.filter { origin.requests("/rows/row-\($0).jpg") == 1 }.count >= 4 }
        let requested = (8..<20).map { "\($0):\(origin.requests("/rows/row-\($0).jpg"))" }.joined(separator: " ")
        let visible = try await browser.run("return [...window.darkroom.state.visible].join(',') + ' scrolling=' + window.darkroom.state.scrolling + ' y=' + window.scrollY")
        let status = try await server.status()
        #expect(started, "scrolled-to rows start; requests \(requested); page \(String(describing: visible)); downloads running \(status.downloadsRunning) waiting \(status.downloadsWaiting) cancelled \(status.downloadsCancelled)")
        let underway = slow.filter { origin.requests("/rows/row-\($0).jpg") == 1 }
        let cancelledBefore = status.downloadsCancelled
        try await browser.run("window.scrollTo(0, document.body.scrollHeight)")
        #expect(try await until(120) { (try await server.status().downloadsCancelled) >= cancelledBefore + underway.count }, "rows scrolled past are cancelled")
        for row in underway {
            #expect(try await until(120) { origin.aborted("/rows/row-\(row).jpg") == 1 }, "the origin saw row \(row)'s download aborted")
        }
        #expect(try await until { (try await states(browser))["29"] == "filtered" }, "the last rows, now visible, are filtered")
        let afterwards = try await states(browser)
        for row in underway { #expect(afterwards["\(row)"] != "filtered", "row \(row) was cancelled, not finished") }
        try await browser.screenshot(to: Corpus.packageRoot.appendingPathComponent(".build/test-artifacts/gallery-scrolled.png"))

        // The photobook button: select rows, make the book, get the link.
        try await browser.run("""
            for (const n of [27, 28, 29]) document.querySelector(`.row[data-row="${n}"] .pick-box`).click();
            document.getElementById('make-book').click();
            """)
        #expect(try await until(60) { (try await browser.run("return !document.getElementById('book-link').hidden") as? Bool) == true },
                "the download link appears")
        let href = try await browser.run("return document.getElementById('book-link').getAttribute('href')") as? String
        let pdf = try await server.get(try #require(href))
        #expect(pdf.status == .ok && pdf.header("Content-Type") == "application/pdf")
        try await browser.screenshot(to: Corpus.packageRoot.appendingPathComponent(".build/test-artifacts/gallery-photobook.png"))
    }
}
