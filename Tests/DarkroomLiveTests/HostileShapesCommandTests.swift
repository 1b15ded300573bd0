import Foundation
import Testing
import TestSupport

/// The decoder-hostile shapes (scripts/make-hostile) and the HEIF ones
/// (`HostileHEIF`) through `darkroom fetch` and `darkroom book`, the front
/// ends the server's and `process`'s tests do not reach: each file is
/// refused with the reason of the limit it passes, or made, and the run
/// goes on to the next.
@Suite(.offCooperativePool) struct HostileShapesCommandTests {
    /// The words a refusal must have, by file; nil: the file is made.
    /// `fetch` keeps animations (a frame bomb is refused for its frames);
    /// a book's page is the first frame.
    /// The budget the outcomes below are written for (the default on a
    /// machine with 1 GiB; more memory raises it).
    static let budgetMiB = 256

    static func expected(keepsAnimation: Bool) -> [String: String?] {
        [
            "many-scans.jpg": "20001 scans, over the limit of 100",
            "scans-at-limit.jpg": nil,
            "coefficient-hog.jpg": "for the coefficients of the 7000 x 7000 progressive JPEG",
            "empty-refinements.jpg": "for the coefficients of the 7000 x 7000 progressive JPEG",
            "flat-8192x6000.jpg": nil,
            "tall-1000x49000.jpg": nil,
            "inflate-bomb.png": nil,
            "frame-bomb.gif": keepsAnimation ? "in each of 100 frames" : nil,
            "many-frames.webp": "more than 10000 frames",
            "many-frames.gif": "more than 10000 frames",
            "interlaced-16bit.png": "for the whole 7000 x 7000 image",
            "one-pixel.png": nil,
            "self-listing.avif": "refers to itself",
            "grid-of-grids.avif": "grid inside a grid",
            "many-references.avif": "over the limit of 256",
            "zero-tiles.avif": "0 x 0",
            "full-chroma-grid.avif": "whole 6656 x 6656",
            "valid-grid.avif": nil,
        ]
    }

    /// Every shape in one folder: make-hostile's and the HEIF ones.
    static func shapes() async throws -> URL {
        let folder = try Fixtures.temporaryFolder("darkroom-hostile-commands")
        let input = folder.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        let made = try await HostileShapes.folder()
        // The SVG shapes are drawings stopped only by the clock, which these
        // runs set far off: HostileSVGTests asks them with a short limit.
        for name in try FileManager.default.contentsOfDirectory(atPath: made.path) where !name.hasSuffix(".svg") {
            try FileManager.default.copyItem(at: made.appendingPathComponent(name), to: input.appendingPathComponent(name))
        }
        try HostileHEIF.write(to: input)
        return folder
    }

    /// Runs `darkroom arguments...` with at most 256 threads where the
    /// machine lets the test say so: a HEIF shape that made libheif recurse
    /// would end that process, not the machine. Output and errors in one.
    static func runCapped(_ arguments: [String], log: URL) async throws -> (status: Int32, output: String) {
        let tasks = TaskCgroup.make(maxTasks: 256)
        #expect(tasks != nil || !Variants.cgroupsRequired, "this run requires the pids cgroup the machine did not allow")
        defer { tasks?.remove() }
        let process = try tasks.map { try $0.start(DarkroomProcess.binary, arguments, log: log) } ?? DarkroomProcess.start(arguments, log: log)
        try await onOwnThread { process.waitUntilExit() }
        #expect((tasks?.refusedTasks ?? 0) == 0, "more than 256 threads were asked for")
        #expect(process.terminationReason == .exit, "ended by signal \(process.terminationStatus)")
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    @Test func fetch() async throws {
        let folder = try await Self.shapes()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("in").path).sorted()
        let expected = Self.expected(keepsAnimation: true)
        #expect(Set(names) == Set(expected.keys), "every shape has its outcome")
        let origin = try await OriginServer.start(serving: folder.appendingPathComponent("in"))
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let list = folder.appendingPathComponent("list.json")
            try JSONSerialization.data(withJSONObject: names.map { ["name": $0, "url": origin.url("/\($0)").absoluteString] }).write(to: list)
            let run = try await Self.runCapped(["fetch", list.path, "--out", folder.appendingPathComponent("out").path,
                                                "--cache-dir", folder.appendingPathComponent("cache").path, "--resize", "200", "--json",
                                                "--max-request-memory-mb", "\(Self.budgetMiB)"],
                                               log: folder.appendingPathComponent("fetch.log"))
            #expect(run.status == 1, "some shapes are refused, and that is all: \(run.output)")
            struct Row: Decodable { var name: String; var state: String; var file: String?; var reason: String? }
            let rows = try run.output.split(separator: "\n").filter { $0.hasPrefix("{") }
                .map { try JSONDecoder().decode(Row.self, from: Data($0.utf8)) }
            for name in names {
                let row = try #require(rows.first { $0.name == name }, "\(name) has a row: \(run.output)")
                switch expected[name] {
                case .some(.some(let words)):
                    #expect(row.state == "failed" && row.reason?.contains(words) == true, "\(name): \(row.state) \(row.reason ?? "")")
                default:
                    #expect(row.state == "filtered", "\(name): \(row.state) \(row.reason ?? "")")
                    let file = try #require(row.file)
                    #expect(try ImageSize.of(Data(contentsOf: URL(fileURLWithPath: file))).width <= 200, "\(name)")
                }
            }
        }
    }

    @Test func book() async throws {
        let folder = try await Self.shapes()
        defer { try? FileManager.default.removeItem(at: folder) }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("in").path).sorted()
        let expected = Self.expected(keepsAnimation: false)
        let pdf = folder.appendingPathComponent("book.pdf")
        let run = try await Self.runCapped(["book"] + names.map { folder.appendingPathComponent("in/\($0)").path }
                                           + ["-o", pdf.path, "--skip-failed", "--dpi", "50", "--max-request-memory-mb", "\(Self.budgetMiB)",
                                              "--cache-dir", folder.appendingPathComponent("cache").path], log: folder.appendingPathComponent("book.log"))
        #expect(run.status == 1, "shapes were skipped, and the book was made: \(run.output)")
        let info = try await runTool("/usr/bin/pdfinfo", [pdf.path])
        let pages = info.output.split(separator: "\n").first { $0.hasPrefix("Pages:") }.flatMap { Int($0.split(separator: " ").last ?? "") }
        #expect(pages == expected.values.filter { $0 == nil }.count, "\(info.output)")
        for name in names {
            let stem = (name as NSString).deletingPathExtension
            let line = run.output.split(separator: "\n").first { $0.contains("skipped \(stem): ") }.map(String.init)
            switch expected[name] {
            case .some(.some(let words)):
                #expect(line?.contains(words) == true, "\(name) is skipped for \"\(words)\": \(line ?? "not skipped")")
            default:
                #expect(line == nil, "\(name) is a page: \(line ?? "")")
            }
        }
    }
}
