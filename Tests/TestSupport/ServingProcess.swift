public import Foundation

/// A `darkroom serve` process and the port it listens on.
///
/// The server is started on port 0 and its port is read from its own
/// "darkroom is serving" line: the kernel picks the port as it binds, so
/// nothing can take it first. A port found free beforehand can be taken,
/// before the server binds it, by any client's outgoing connection on a
/// machine running many tests at once; the server then exits and the test
/// waits out its whole start-up time.
public struct ServingProcess: Sendable {
    public let process: Process
    public let port: Int
    public let log: URL

    public var base: String { "http://127.0.0.1:\(port)" }

    /// Starts `darkroom arguments... --port 0` (output to `log`) and
    /// returns once it listens; throws with the log's end if it exits or
    /// does not listen within `seconds`.
    public static func start(_ arguments: [String], log: URL, environment: [String: String] = [:],
                             seconds: Double = 120) async throws -> ServingProcess {
        let process = try DarkroomProcess.start(arguments + ["--port", "0"], log: log, environment: environment)
        return try await listening(process, log: log, seconds: seconds)
    }

    /// Waits until `process` (a `darkroom serve` writing to `log`) listens.
    public static func listening(_ process: Process, log: URL, seconds: Double = 120) async throws -> ServingProcess {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let found = try await polling { () async throws -> ServingProcess? in
            while ContinuousClock.now < deadline {
                if let port = servingPort(in: log) { return ServingProcess(process: process, port: port, log: log) }
                guard process.isRunning else { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            return nil
        }
        if let found { return found }
        // Once more past the deadline: a poller kept from running (the
        // machine's cores busy with other work) must not fail a server
        // that listened in time.
        if let port = servingPort(in: log) { return ServingProcess(process: process, port: port, log: log) }
        let stillRunning = process.isRunning
        await DarkroomProcess.stop(process)
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        throw DidNotStart(description: stillRunning
            ? "darkroom serve did not listen within \(Int(seconds)) s: \(text.suffix(1500))"
            : "darkroom serve exited (status \(process.terminationStatus)) before it listened: \(text.suffix(1500))")
    }

    public struct DidNotStart: Error, CustomStringConvertible {
        public let description: String
    }

    /// The port in the log's "darkroom is serving" line, text or JSON
    /// (its address ends in ":PORT").
    static func servingPort(in log: URL) -> Int? {
        guard let data = try? Data(contentsOf: log) else { return nil }
        let text = String(decoding: data, as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.contains("darkroom is serving") }),
              let address = line.range(of: "address") else { return nil }
        let rest = line[address.upperBound...]
        // "address=[IPv4]127.0.0.1/127.0.0.1:8080 ..." or "\"address\":\"[IPv4]...:8080\"".
        let token = rest.drop { !$0.isNumber && $0 != "[" }.prefix { !$0.isWhitespace && $0 != "\"" && $0 != "," }
        guard let colon = token.lastIndex(of: ":") else { return nil }
        return Int(token[token.index(after: colon)...])
    }

    /// Stops it (SIGTERM, then SIGKILL after `seconds`); its status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, seconds: Double = 15) async -> Int32? {
        await DarkroomProcess.stop(process, signal: signal, seconds: seconds)
    }
}
