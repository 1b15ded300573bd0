import Darkroom
import Foundation

/// One row's outcome.
struct FetchResult: Sendable, Encodable {
    var row: Int
    var name: String
    var url: String?
    var state: State
    var file: String?
    var original: String?
    var bytes: Int?
    var seconds: Double?
    var reason: String?

    /// Where a row ended (`new` while it runs).
    enum State: String, Sendable, Encodable {
        case new, filtered, failed, skipped
    }

    var jsonLine: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The end-of-run table: row, state, size, time, reason.
    static func table(_ results: [FetchResult]) -> String {
        let header = ["row", "name", "state", "size", "time", "reason"]
        let lines = results.map { r in
            [String(r.row + 1), r.name, r.state.rawValue,
             r.bytes.map { ByteCountFormatter.string(fromByteCount: Int64($0), countStyle: .file) } ?? "",
             r.seconds.map { String(format: "%.2f s", $0) } ?? "", r.reason ?? ""]
        }
        let widths = header.indices.map { i in ([header] + lines).map { $0[i].count }.max() ?? 0 }
        func format(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in i == cells.count - 1 ? cell : cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        let filtered = results.filter { $0.state == .filtered }.count
        let skipped = results.filter { $0.state == .skipped }.count
        let failed = results.filter { $0.state == .failed }.count
        let summary = "\(filtered) of \(results.count) filtered, \(failed) failed" + (skipped > 0 ? ", \(skipped) skipped (already there)" : "")
        return ([format(header)] + lines.map(format) + [summary]).joined(separator: "\n")
    }
}

/// Runs a list through a controller with every row visible, writing results
/// as they arrive and reporting progress.
struct FetchRun {
    enum Progress { case bar, lines, none }

    /// The rows to run, numbered from 0 in this run.
    let list: PhotoList
    /// Each row's number in the whole list (what the user sees), and its
    /// output name without extension, made over the whole list so that
    /// every shard and every rerun names a row the same way.
    let rowNumbers: [Int]
    let stems: [String]
    let pipeline: ImagePipeline
    let options: ProcessingOptions
    let output: FetchOutput
    let writeOriginals: Bool
    let progress: Progress

    /// Rows under way at once: enough to keep downloads ahead of the
    /// filters on a slow origin, few enough that a run over a long list
    /// (or a cached run, whose disk hits arrive faster than they are
    /// written out) holds a bounded amount of work, whatever the list's
    /// length.
    static let window = 64

    func run() async -> [FetchResult] {
        let start = ContinuousClock.now
        var results = list.entries.enumerated().map { position, entry in
            FetchResult(row: rowNumbers[position], name: entry.name, url: entry.url?.absoluteString, state: .new)
        }
        var done = 0, failures = 0
        for (position, entry) in list.entries.enumerated() where entry.problem != nil {
            results[position].state = .failed
            results[position].reason = entry.problem
            done += 1
            failures += 1
            report(results[position], done: done, start: start, failures: failures)
        }
        guard done < list.count else { return results }

        // The rows under way are the controller's visible rows: a row that
        // ends leaves them and the next row not yet started joins.
        var underWay = Set<Int>(), nextRow = 0
        func refill() {
            while underWay.count < Self.window, nextRow < list.count {
                if results[nextRow].state == .new { underWay.insert(nextRow) }
                nextRow += 1
            }
        }
        let controller = PhotoListController(list: list, pipeline: pipeline, options: options)
        refill()
        await controller.setVisibleRows(underWay)
        for await event in controller.events {
            let row = event.row
            switch event.state {
            case .downloaded:
                if writeOriginals, let original = event.original {
                    results[row].original = try? await write(original.data, stem: stems[row] + ".original", format: original.format).get()
                }
                continue
            case .filtered:
                guard let response = event.image else { continue }
                switch await write(response.image.data, stem: stems[row], format: response.image.format) {
                case .success(let location):
                    results[row].file = location
                    results[row].state = .filtered
                case .failure(let error):
                    results[row].state = .failed
                    results[row].reason = error.reason
                    failures += 1
                }
                results[row].bytes = response.image.data.count
                if writeOriginals, results[row].original == nil, let url = list.entries[row].url,
                   let original = try? await pipeline.originalData(for: .url(url)) {
                    results[row].original = try? await write(original.data, stem: stems[row] + ".original", format: original.format).get()
                }
            case .failed(let reason):
                results[row].state = .failed
                results[row].reason = reason
                failures += 1
            case .new:
                continue
            }
            results[row].seconds = (ContinuousClock.now - start).seconds
            done += 1
            report(results[row], done: done, start: start, failures: failures)
            if done == list.count {
                await controller.close()
            } else {
                underWay.remove(row)
                refill()
                await controller.setVisibleRows(underWay)
            }
        }
        if progress == .bar { FileHandle.standardError.write(Data("\n".utf8)) }
        return results
    }

    private func write(_ data: Data, stem: String, format: ImageFormat) async -> Result<String, FetchWriteError> {
        await output.write(data, name: "\(stem).\(format.fileExtension)", contentType: format.mimeType)
    }

    private func report(_ result: FetchResult, done: Int, start: ContinuousClock.Instant, failures: Int) {
        switch progress {
        case .none:
            return
        case .lines:
            let detail = result.state == .filtered ? "-> \(result.file ?? "")" : (result.reason ?? "")
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
