import Darkroom
import Foundation

/// One row's outcome.
struct FetchResult: Sendable, Encodable {
    var row: Int
    var name: String
    var url: String?
    var state: String
    var file: String?
    var original: String?
    var bytes: Int?
    var seconds: Double?
    var reason: String?

    var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The end-of-run table: row, state, size, time, reason.
    static func table(_ results: [FetchResult]) -> String {
        let header = ["row", "name", "state", "size", "time", "reason"]
        let lines = results.map { r in
            [String(r.row + 1), r.name, r.state,
             r.bytes.map { ByteCountFormatter.string(fromByteCount: Int64($0), countStyle: .file) } ?? "",
             r.seconds.map { String(format: "%.2f s", $0) } ?? "", r.reason ?? ""]
        }
        let widths = header.indices.map { i in ([header] + lines).map { $0[i].count }.max() ?? 0 }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in i == cells.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let filtered = results.filter { $0.state == "filtered" }.count
        let summary = "\(filtered) of \(results.count) filtered, \(results.count - filtered) failed"
        return ([format(header)] + lines.map(format) + [summary]).joined(separator: "\n")
    }
}

/// Runs a list through a controller with every row visible, writing results
/// as they arrive and reporting progress.
struct FetchRun {
    enum Progress { case bar, lines, none }

    let list: PhotoList
    let pipeline: ImagePipeline
    let options: ProcessingOptions
    let outFolder: URL
    let writeOriginals: Bool
    let progress: Progress

    func run() async -> [FetchResult] {
        let start = ContinuousClock.now
        var used = Set<String>()
        let stems = list.entries.map { SafeFileName.unique(SafeFileName.make($0.name), in: &used) }
        var results = list.entries.map { entry in
            FetchResult(row: entry.id, name: entry.name, url: entry.url?.absoluteString, state: "new")
        }
        var done = 0
        for entry in list.entries where entry.problem != nil {
            results[entry.id].state = "failed"
            results[entry.id].reason = entry.problem
            done += 1
            report(results[entry.id], done: done, start: start, failures: done)
        }
        guard done < list.count else { return results }

        let controller = PhotoListController(list: list, pipeline: pipeline, options: options)
        await controller.setVisibleRows(0..<list.count)
        for await event in controller.events {
            let row = event.row
            switch event.state {
            case .downloaded:
                if writeOriginals, let original = event.original {
                    results[row].original = write(original.data, stem: stems[row] + ".original", format: original.format)
                }
                continue
            case .filtered:
                guard let response = event.image else { continue }
                results[row].file = write(response.image.data, stem: stems[row], format: response.image.format)
                results[row].bytes = response.image.data.count
                results[row].state = results[row].file == nil ? "failed" : "filtered"
                if results[row].file == nil { results[row].reason = "the result could not be written to \(outFolder.path)" }
                if writeOriginals, results[row].original == nil, let url = list.entries[row].url,
                   let original = try? await pipeline.originalData(for: .url(url)) {
                    results[row].original = write(original.data, stem: stems[row] + ".original", format: original.format)
                }
            case .failed(let reason):
                results[row].state = "failed"
                results[row].reason = reason
            case .new:
                continue
            }
            results[row].seconds = (ContinuousClock.now - start).seconds
            done += 1
            report(results[row], done: done, start: start, failures: results.filter { $0.state == "failed" }.count)
            if done == list.count { await controller.close() }
        }
        if progress == .bar { FileHandle.standardError.write(Data("\n".utf8)) }
        return results
    }

    private func write(_ data: Data, stem: String, format: ImageFormat) -> String? {
        let path = outFolder.appendingPathComponent("\(stem).\(format.fileExtension)").path
        do {
            try AtomicFile.write(data, to: path)
            return path
        } catch {
            return nil
        }
    }

    private func report(_ result: FetchResult, done: Int, start: ContinuousClock.Instant, failures: Int) {
        switch progress {
        case .none:
            return
        case .lines:
            let detail = result.state == "filtered" ? "-> \(result.file ?? "")" : (result.reason ?? "")
            print("[\(done)/\(list.count)] \(result.state) \(result.name) \(detail)")
        case .bar:
            let elapsed = max((ContinuousClock.now - start).seconds, 0.001)
            let width = 30
            let filled = list.count == 0 ? width : width * done / list.count
            let bar = String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            let line = String(format: "\r[%@] %d/%d  failed %d  %.1f rows/s ", bar, done, list.count, failures, Double(done) / elapsed)
            FileHandle.standardError.write(Data(line.utf8))
        }
    }
}
