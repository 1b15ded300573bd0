import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// The hostile corpus through every front end: `darkroom process`, `fetch`
/// and `book`, and the server. Each file makes a correct image or fails
/// with a reason of its own; nothing crashes, and the server goes on.
@Suite(.offCooperativePool) struct HostileInputTests {
    static func corpus() async throws -> (folder: URL, files: [(name: String, outcome: HostileCorpus.Outcome)]) {
        let folder = try Fixtures.temporaryFolder("darkroom-hostile")
        return (folder, try await HostileCorpus.write(to: folder.appendingPathComponent("in")))
    }

    /// Checks one answer against the one outcome its file must have: an
    /// image of the size the fit makes (decoding to its last pixel), or a
    /// failure whose reason has the expected words.
    static func check(_ name: String, _ expected: HostileCorpus.Outcome, box: (width: Int, height: Int),
                      made output: String?, failed reason: String?) async throws {
        switch (expected, output, reason) {
        case (.image, let output?, nil), (.vector, let output?, nil):
            let size = try ImageSize.of(try Data(contentsOf: URL(fileURLWithPath: output)))
            let fitted = try #require(expected.fitted(width: box.width, height: box.height))
            #expect(size == fitted, "\(name) made \(size.width) x \(size.height), not \(fitted.width) x \(fitted.height)")
            #expect(try await decodes(output), "\(name) made \(output), which does not decode")
        case (.error(let words), nil, let reason?):
            #expect(reason.contains(words), "\(name): \(reason), without \"\(words)\"")
        default:
            Issue.record("\(name) must come to \(expected): made \(output ?? "nothing"), failed \(reason ?? "no")")
        }
    }

    /// Whether `file` is an image libvips decodes to the last pixel.
    static func decodes(_ file: String) async throws -> Bool {
        try await runTool("/usr/bin/vips", ["avg", file]).status == 0
    }

    @Test func process() async throws {
        let (folder, files) = try await Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = files.map { folder.appendingPathComponent("in/\($0.name)").path }
        let run = try await DarkroomProcess.run(["process"] + inputs + ["-o", folder.appendingPathComponent("out").path, "--resize", "200", "--svg-render"])
        #expect(run.status == 1, "some inputs fail, and that is all: \(run.stderr)")
        for (input, file) in zip(inputs, files) {
            let made = run.stdout.split(separator: "\n").first { $0.hasPrefix("\(input) -> ") }
                .map { String($0.dropFirst("\(input) -> ".count).prefix { $0 != " " }) }
            let failed = run.stderr.split(separator: "\n").first { $0.contains("\(input): ") }.map(String.init)
            try await Self.check(file.name, file.outcome.made(keepsAnimation: true), box: (200, 200), made: made, failed: failed)
        }
    }

    @Test func fetch() async throws {
        let (folder, files) = try await Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: folder.appendingPathComponent("in"))
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let list = folder.appendingPathComponent("list.json")
            try JSONSerialization.data(withJSONObject: files.map { ["name": $0.name, "url": origin.url("/\($0.name)").absoluteString] }).write(to: list)
            let run = try await DarkroomProcess.run(["fetch", list.path, "--out", folder.appendingPathComponent("out").path,
                                                     "--cache-dir", folder.appendingPathComponent("cache").path, "--resize", "200", "--json", "--svg-render"])
            #expect(run.status == 1, "\(run.stderr)")
            struct Row: Decodable { var name: String; var state: String; var file: String?; var reason: String? }
            let rows = try run.stdout.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
            #expect(rows.count == files.count)
            for file in files {
                let row = try #require(rows.first { $0.name == file.name })
                #expect(["filtered", "failed"].contains(row.state), "\(file.name): \(row.state)")
                try await Self.check(file.name, file.outcome.made(keepsAnimation: true), box: (200, 200),
                                     made: row.state == "filtered" ? row.file : nil, failed: row.state == "failed" ? row.reason : nil)
            }
        }
    }

    @Test func book() async throws {
        let (folder, files) = try await Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = folder.appendingPathComponent("book.pdf")
        let run = try await DarkroomProcess.run(["book"] + files.map { folder.appendingPathComponent("in/\($0.name)").path }
                                                + ["-o", pdf.path, "--skip-failed", "--dpi", "50", "--svg-render"])
        #expect(run.status == 1, "photos were skipped, and the book was made: \(run.stderr)")
        let info = try await runTool("/usr/bin/pdfinfo", [pdf.path])
        #expect(info.status == 0, "\(info.output)")
        let pages = info.output.split(separator: "\n").first { $0.hasPrefix("Pages:") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        let outcomes = files.map { (name: $0.name, outcome: $0.outcome.made(keepsAnimation: false)) }
        let images = outcomes.filter { if case .error = $0.outcome { false } else { true } }
        #expect(pages == images.count, "\(pages) pages for \(images.count) images")
        for file in outcomes {
            // Named as its page would have been captioned: the file's name without extension.
            let stem = (file.name as NSString).deletingPathExtension
            let line = run.stderr.split(separator: "\n").first { $0.contains("skipped \(stem): ") }
            switch file.outcome {
            case .error(let words):
                #expect(line?.contains(words) == true, "\(file.name) is reported as skipped, with \"\(words)\": \(line ?? "not reported")")
            default:
                #expect(line == nil, "\(file.name) is a page: \(line ?? "")")
            }
        }
    }

    @Test func server() async throws {
        let (folder, files) = try await Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: folder.appendingPathComponent("in"))
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let server = try await ServingProcess.start(["serve", "--cache-dir", folder.appendingPathComponent("cache").path,
                                                         "--allow-private-networks", "--svg-render"], log: folder.appendingPathComponent("serve.log"))
            let (process, port) = (server.process, server.port)
            try await cleaningUp({ await server.stop() }) { () async throws in
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
                try await cleaningUp({ try? await client.shutdown() }) { () async throws in
                    func get(_ path: String) async throws -> (status: UInt, body: Data) {
                        let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
                        return (response.status.code, Data(buffer: try await response.body.collect(upTo: 20 << 20)))
                    }
                    let up = await eventuallyAsync(60) { (try? await get("/health"))?.status == 200 }
                    try #require(up, "the server did not start")

                    for file in files {
                        let answer = try await get("/img/_/rs:fit:200:200/plain/\(plainSource(origin.url("/\(file.name)")))@jpg")
                        let expected = file.outcome.made(keepsAnimation: false)
                        if case .error = expected {
                            #expect(answer.status == 422 || answer.status == 413, "\(file.name): \(answer.status)")
                            try await Self.check(file.name, expected, box: (200, 200), made: nil, failed: String(decoding: answer.body, as: UTF8.self))
                        } else {
                            #expect(answer.status == 200, "\(file.name): \(answer.status) \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
                            let output = folder.appendingPathComponent("\(file.name).out.jpg")
                            try answer.body.write(to: output)
                            try await Self.check(file.name, expected, box: (200, 200), made: answer.status == 200 ? output.path : nil, failed: nil)
                        }
                    }
                    #expect(process.isRunning)
                    #expect(try await get("/health").status == 200, "the server goes on")
                    // Bombs are refused from their headers: memory never went near what
                    // decoding them would take (a 100000 x 100000 image: 28 GiB).
                    let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
                    let peakKiB = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
                    #expect(!Variants.measuresMemory || (peakKiB > 0 && peakKiB < 512 << 10), "peak resident memory \(peakKiB / 1024) MiB")
                }
            }
        }
    }
}
