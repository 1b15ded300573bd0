import Foundation
import Testing
import TestSupport

/// The documentation site `make docs` builds (scripts/docs-site) in a real
/// browser, headless Chromium: the questions users bring, asked in its
/// search box and answered by the pages its results lead to, and every
/// page of its sidebar.
@Suite(.serialized) struct DocsSiteTests {
    static let script = Corpus.packageRoot.appendingPathComponent("scripts/docs-site")
    static let python = Corpus.packageRoot.appendingPathComponent(".venv/bin/python")

    /// The site's folder served on a loopback port by Python's http.server.
    final class SiteServer: @unchecked Sendable {  // immutable after start
        let base: String
        private let process: Process
        private let logFolder: URL

        private init(base: String, process: Process, logFolder: URL) {
            self.base = base
            self.process = process
            self.logFolder = logFolder
        }

        static func start(serving folder: URL) async throws -> SiteServer {
            let port = try LoopbackPort.free()
            let logFolder = try Fixtures.temporaryFolder("docs-site-server")
            let log = logFolder.appendingPathComponent("http-server.log")
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = ["-m", "http.server", "--bind", "127.0.0.1", "\(port)", "--directory", folder.path]
            try DarkroomProcess.runLogging(process, to: log)
            let server = SiteServer(base: "http://127.0.0.1:\(port)", process: process, logFolder: logFolder)
            // Python starts in well under a second on an idle machine, and in
            // many seconds while the whole suite runs on two cores.
            _ = await eventually(120) { !process.isRunning || LoopbackPort.isListening(port) }
            guard process.isRunning, LoopbackPort.isListening(port) else {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                await server.stop()
                throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "http.server did not start: \(text.suffix(2000))"])
            }
            return server
        }

        func stop() async {
            await DarkroomProcess.stop(process)
            try? FileManager.default.removeItem(at: logFolder)
        }
    }

    /// Opens the home page, types `query` into its search box and returns
    /// the results' links in their order (none after 30 s: empty).
    func search(_ browser: WebDriver, _ base: String, _ query: String) async throws -> [String] {
        try await browser.open(base + "/index.html")
        try await browser.run("""
            const box = document.getElementById('search');
            box.focus();
            box.value = '\(query)';
            box.dispatchEvent(new Event('input', { bubbles: true }));
            """)
        var links: [String] = []
        _ = await eventuallyAsync(30) {
            links = (try? await browser.run("return [...document.querySelectorAll('#search-results a')].map(a => a.getAttribute('href'))") as? [String]) ?? []
            return !links.isEmpty
        }
        return links
    }

    /// Clicks the first result whose link starts with `prefix`; whether
    /// its page came.
    func follow(_ browser: WebDriver, _ prefix: String) async throws -> Bool {
        try await browser.run("document.querySelector('#search-results a[href^=\"\(prefix)\"]').click()")
        let path = "/" + (prefix.split(separator: "#").first.map(String.init) ?? prefix)
        return await eventuallyAsync {
            (try? await browser.run("return location.pathname + ' ' + document.readyState") as? String) == "\(path) complete"
        }
    }

    /// The text from the heading the address's #anchor names to the next
    /// heading of its level or above ("" when the anchor names nothing).
    func sectionText(_ browser: WebDriver) async throws -> String {
        try await browser.run("""
            const heading = document.getElementById(decodeURIComponent(location.hash.slice(1)));
            if (!heading || !/^H[1-6]$/.test(heading.tagName)) return '';
            let text = heading.textContent + '\\n';
            for (let e = heading.nextElementSibling; e && !(/^H[1-6]$/.test(e.tagName) && e.tagName <= heading.tagName); e = e.nextElementSibling) {
                text += e.innerText + '\\n';
            }
            return text;
            """) as? String ?? ""
    }

    /// The browser ends on every path, then the server; a browser that does
    /// not start fails this test alone.
    @Test func theSiteAnswersWhatUsersAsk() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.python.path), "\(Self.python.path) is missing: run scripts/bootstrap")
        let site = try Fixtures.temporaryFolder("darkroom-docs-site")
        defer { try? FileManager.default.removeItem(at: site) }
        let built = try await runTool(Self.python.path, [Self.script.path, site.path])
        try #require(built.status == 0, "scripts/docs-site failed: \(built.output)")
        let server = try await SiteServer.start(serving: site)
        try await cleaningUp({ await server.stop() }) {
            try await WebDriver.with { browser in
                try await answersQuestions(browser, base: server.base)
                try await everySidebarPageLoads(browser, base: server.base)
            }
        }
    }

    func answersQuestions(_ browser: WebDriver, base: String) async throws {
        // How do I set X: the setting's row, and its variable, on the settings page.
        let setting = try await search(browser, base, "max-source-bytes")
        #expect(setting.contains { $0.hasPrefix("settings.html#") }, "max-source-bytes finds the settings page: \(setting)")
        if setting.contains(where: { $0.hasPrefix("settings.html#") }) {
            #expect(try await follow(browser, "settings.html#"), "the result opens the settings page")
            #expect(try await sectionText(browser).contains("DARKROOM_MAX_SOURCE_BYTES"), "the section the result names gives the variable")
        }
        try await browser.screenshot(to: Corpus.packageRoot.appendingPathComponent(".build/test-artifacts/docs-settings.png"))

        // What does option Y take: the URL grammar in the server's guide.
        let option = try await search(browser, base, "resizing_type")
        #expect(option.contains { $0.hasPrefix("server.html#") }, "resizing_type finds the server's URL options: \(option)")
        if option.contains(where: { $0.hasPrefix("server.html#") }) {
            #expect(try await follow(browser, "server.html#"), "the result opens the server's page")
            let text = try await sectionText(browser)
            #expect(text.contains("rt/resizing_type (fit, fill, fill-down, force, auto"), "the section gives the option's values: \(text.prefix(300))")
        }

        // How do I move from imgproxy: the page for it, among the first results.
        let moving = try await search(browser, base, "imgproxy")
        #expect(moving.prefix(5).contains { $0.hasPrefix("imgproxy.html") }, "imgproxy finds the page on moving from imgproxy: \(moving.prefix(5))")
        if moving.contains(where: { $0.hasPrefix("imgproxy.html") }) {
            #expect(try await follow(browser, "imgproxy.html"), "the result opens the page on moving from imgproxy")
            let heading = try await browser.run("return document.querySelector('main h1').textContent") as? String
            #expect(heading == "Moving from imgproxy")
        }

        // Tables are searched row by row: a variable, a flag, a URL option.
        for (query, page) in [("IMGPROXY_KEY", "settings.html#"), ("--max-source-bytes", "settings.html#"), ("rs", "server.html#image-url-options")] {
            let links = try await search(browser, base, query)
            #expect(links.contains { $0.hasPrefix(page) }, "\(query) finds \(page): \(links)")
        }
    }

    /// Every page of the sidebar, clicked from the home page, comes with
    /// its title: one a page for README.md and each docs/*.md.
    func everySidebarPageLoads(_ browser: WebDriver, base: String) async throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: Corpus.packageRoot.appendingPathComponent("docs").path)
        let expected = 1 + docs.filter { $0.hasSuffix(".md") }.count
        try await browser.open(base + "/index.html")
        let pages = try await browser.run("return [...document.querySelectorAll('nav.sidebar a.page')].map(a => [a.getAttribute('href'), a.textContent])") as? [[String]] ?? []
        #expect(pages.count == expected, "the sidebar lists \(expected) pages: \(pages)")
        for (i, page) in pages.enumerated() where page.count == 2 {
            let (href, title) = (page[0], page[1])
            try await browser.open(base + "/index.html")
            try await browser.run("document.querySelectorAll('nav.sidebar a.page')[\(i)].click()")
            let came = await eventuallyAsync {
                (try? await browser.run("return location.pathname + ' ' + document.readyState") as? String) == "/\(href) complete"
            }
            let shown = try await browser.run("return [document.title, (document.querySelector('main h1') || {}).textContent || '']") as? [String] ?? []
            #expect(came && shown.count == 2 && shown[0].hasPrefix(title) && shown[1] == title, "\(href) loads as \(title): \(shown)")
        }
    }
}
