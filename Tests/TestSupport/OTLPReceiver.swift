public import Foundation

/// A real OTLP/HTTP trace receiver on a loopback port: the official
/// `opentelemetry-proto` messages (from PyPI, in the project's `.venv`,
/// installed by `scripts/bootstrap`) decoding what an exporter posts to
/// /v1/traces, one JSON line a span in a file the test reads.
public final class OTLPReceiver: @unchecked Sendable {  // immutable after start
    public static let script = Corpus.packageRoot.appendingPathComponent("Tests/Receivers/otlp_receiver.py")
    public static let python = Corpus.packageRoot.appendingPathComponent(".venv/bin/python")

    public let port: Int
    public let folder: URL
    private let process: Process
    private var spansFile: URL { folder.appendingPathComponent("spans.jsonl") }

    /// The address for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    public var endpoint: String { "http://127.0.0.1:\(port)" }

    /// One span as the receiver decoded it.
    public struct ReceivedSpan: Sendable, CustomStringConvertible {
        public let traceID: String
        public let spanID: String
        public let parentSpanID: String
        public let name: String
        /// OTLP's numbers: 2 is a server span, 3 a client's call.
        public let kind: Int
        /// OTLP's status code: 2 is an error.
        public let status: Int
        public let attributes: [String: String]
        public let resource: [String: String]

        public var description: String { "\(name) \(spanID)<-\(parentSpanID) \(attributes)" }
    }

    public static func start() async throws -> OTLPReceiver {
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(python.path) is missing: run scripts/bootstrap"])
        }
        let folder = try Fixtures.temporaryFolder("otlp")
        let log = folder.appendingPathComponent("receiver.log")
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, folder.appendingPathComponent("spans.jsonl").path]
        try DarkroomProcess.runLogging(process, to: log)
        // Python and protobuf start in well under a second on an idle
        // machine, and took over a minute while the whole suite ran on two cores.
        let deadline = ContinuousClock.now + .seconds(300)
        while ContinuousClock.now < deadline, process.isRunning {
            let text = String(decoding: (try? Data(contentsOf: log)) ?? Data(), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening ") }), let port = Int(line.dropFirst(10)) {
                return OTLPReceiver(port: port, folder: folder, process: process)
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        await DarkroomProcess.stop(process)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw CocoaError(.fileReadUnknown, userInfo: [NSLocalizedDescriptionKey: "the OTLP receiver did not start: \(text.suffix(2000))"])
    }

    private init(port: Int, folder: URL, process: Process) {
        self.port = port
        self.folder = folder
        self.process = process
    }

    /// Every span received so far.
    public func spans() -> [ReceivedSpan] {
        guard let data = try? Data(contentsOf: spansFile) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
            func strings(_ key: String) -> [String: String] {
                ((object[key] as? [String: Any]) ?? [:]).mapValues { "\($0)" }
            }
            return ReceivedSpan(traceID: object["trace_id"] as? String ?? "", spanID: object["span_id"] as? String ?? "",
                                parentSpanID: object["parent_span_id"] as? String ?? "", name: object["name"] as? String ?? "",
                                kind: object["kind"] as? Int ?? 0, status: object["status"] as? Int ?? 0,
                                attributes: strings("attributes"), resource: strings("resource"))
        }
    }

    public func stop() async {
        await DarkroomProcess.stop(process)
        try? FileManager.default.removeItem(at: folder)
    }
}
