import AsyncHTTPClient
import Foundation
import NIOCore
import Testing
import TestSupport

/// The hostile corpus through every front end: `darkroom process`, `fetch`
/// and `book`, and the server. Each file makes a correct image or fails
/// with a reason of its own; nothing crashes, and the server goes on.
@Suite struct HostileInputTests {
    static func corpus() throws -> (folder: URL, files: [(name: String, outcome: HostileCorpus.Outcome)]) {
        let folder = try Fixtures.temporaryFolder("darkroom-hostile")
        return (folder, try HostileCorpus.write(to: folder.appendingPathComponent("in")))
    }

    /// Whether `file` is an image libvips decodes to the last pixel.
    static func decodes(_ file: String) async throws -> Bool {
        try await runTool("/usr/bin/vips", ["avg", file]).status == 0
    }

    @Test func process() async throws {
        let (folder, files) = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = files.map { folder.appendingPathComponent("in/\($0.name)").path }
        let run = try await DarkroomProcess.run(["process"] + inputs + ["-o", folder.appendingPathComponent("out").path, "--resize", "200"])
        #expect(run.status == 1, "some inputs fail, and that is all: \(run.stderr)")
        for (input, file) in zip(inputs, files) {
            let made = run.stdout.split(separator: "\n").first { $0.hasPrefix("\(input) -> ") }
            let failed = run.stderr.split(separator: "\n").first { $0.contains("\(input): ") }
            switch (file.outcome, made, failed) {
            case (.image, let made?, nil), (.either, let made?, nil):
                let output = String(made.dropFirst("\(input) -> ".count).prefix { $0 != " " })
                #expect(try await Self.decodes(output), "\(file.name) made \(output), which does not decode")
            case (.error, nil, let failed?), (.either, nil, let failed?):
                #expect(failed.count > "darkroom: \(input): ".count + 10, "\(file.name): \(failed)")
            default:
                Issue.record("\(file.name) (\(file.outcome)): made \(made ?? "nothing"), failed \(failed ?? "no")")
            }
        }
    }

    @Test func fetch() async throws {
        let (folder, files) = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: folder.appendingPathComponent("in"))
        defer { Task { await origin.stop() } }
        let list = folder.appendingPathComponent("list.json")
        try JSONSerialization.data(withJSONObject: files.map { ["name": $0.name, "url": origin.url("/\($0.name)").absoluteString] }).write(to: list)
        let run = try await DarkroomProcess.run(["fetch", list.path, "--out", folder.appendingPathComponent("out").path,
                                                 "--cache-dir", folder.appendingPathComponent("cache").path, "--resize", "200", "--json"])
        #expect(run.status == 1, "\(run.stderr)")
        struct Row: Decodable { var name: String; var state: String; var file: String?; var reason: String? }
        let rows = try run.stdout.split(separator: "\n").map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
        #expect(rows.count == files.count)
        for file in files {
            let row = try #require(rows.first { $0.name == file.name })
            switch (file.outcome, row.state) {
            case (.image, "filtered"), (.either, "filtered"):
                #expect(try await Self.decodes(try #require(row.file)), "\(file.name)")
            case (.error, "failed"), (.either, "failed"):
                #expect((row.reason ?? "").count > 10, "\(file.name): \(row.reason ?? "no reason")")
            default:
                Issue.record("\(file.name) (\(file.outcome)): \(row.state) \(row.reason ?? "")")
            }
        }
    }

    @Test func book() async throws {
        let (folder, files) = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let pdf = folder.appendingPathComponent("book.pdf")
        let run = try await DarkroomProcess.run(["book"] + files.map { folder.appendingPathComponent("in/\($0.name)").path }
                                                + ["-o", pdf.path, "--skip-failed", "--dpi", "50"])
        #expect(run.status == 1, "photos were skipped, and the book was made: \(run.stderr)")
        let info = try await runTool("/usr/bin/pdfinfo", [pdf.path])
        #expect(info.status == 0, "\(info.output)")
        let pages = info.output.split(separator: "\n").first { $0.hasPrefix("Pages:") }.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
        let images = files.filter { $0.outcome == .image }.count, possible = files.filter { $0.outcome != .error }.count
        #expect((images...possible).contains(pages), "\(pages) pages for \(images) to \(possible) images")
        for file in files where file.outcome == .error {
            // Named as its page would have been captioned: the file's name without extension.
            let stem = (file.name as NSString).deletingPathExtension
            let line = run.stderr.split(separator: "\n").first { $0.contains("skipped \(stem): ") }
            #expect((line?.count ?? 0) > "darkroom: skipped \(stem): ".count + 10, "\(file.name) is reported as skipped, with a reason")
        }
    }

    @Test func server() async throws {
        let (folder, files) = try Self.corpus()
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = try await OriginServer.start(serving: folder.appendingPathComponent("in"))
        defer { Task { await origin.stop() } }
        let port = try LoopbackPort.free()
        let process = try DarkroomProcess.start(["serve", "--port", "\(port)", "--cache-dir", folder.appendingPathComponent("cache").path,
                                                 "--allow-private-networks"], log: folder.appendingPathComponent("serve.log"))
        defer { Task { await DarkroomProcess.stop(process) } }
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        defer { Task { try? await client.shutdown() } }
        func get(_ path: String) async throws -> (status: UInt, body: Data) {
            let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(60))
            return (response.status.code, Data(buffer: try await response.body.collect(upTo: 20 << 20)))
        }
        let up = await eventuallyAsync(60) { (try? await get("/health"))?.status == 200 }
        try #require(up, "the server did not start")

        for file in files {
            let answer = try await get("/img/_/rs:fit:200:200/plain/\(plainSource(origin.url("/\(file.name)")))@jpg")
            switch (file.outcome, answer.status) {
            case (.image, 200), (.either, 200):
                let output = folder.appendingPathComponent("\(file.name).out.jpg")
                try answer.body.write(to: output)
                #expect(try await Self.decodes(output.path), "\(file.name)")
            case (.error, 400..<500), (.either, 400..<500):
                #expect(String(decoding: answer.body, as: UTF8.self).count > 10, "\(file.name): \(answer.status) without a reason")
            default:
                Issue.record("\(file.name) (\(file.outcome)): \(answer.status) \(String(decoding: answer.body.prefix(200), as: UTF8.self))")
            }
        }
        #expect(process.isRunning)
        #expect(try await get("/health").status == 200, "the server goes on")
        // Bombs are refused from their headers: memory never went near what
        // decoding them would take (a 65500 x 65500 image: 12 GiB).
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let peakKiB = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }.flatMap { Int($0.split(separator: " ")[1]) } ?? 0
        #expect(peakKiB > 0 && peakKiB < 512 << 10, "peak resident memory \(peakKiB / 1024) MiB")
    }
}
