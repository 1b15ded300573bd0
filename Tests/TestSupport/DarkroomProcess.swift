public import Foundation

/// Runs the built `darkroom` executable, as a user would.
public enum DarkroomProcess {
    public static let binary = product("darkroom")

    /// A product built beside the running tests (whatever the build
    /// folder: `make sanitize` uses its own), else in `.build/debug`.
    public static func product(_ name: String) -> URL {
        if let beside = Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent(name),
           FileManager.default.isExecutableFile(atPath: beside.path) {
            return beside
        }
        return Corpus.packageRoot.appendingPathComponent(".build/debug/\(name)")
    }

    public struct Outcome: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs `darkroom arguments...` to the end.
    public static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Outcome {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = Self.environment(environment)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try TiedProcess.run(process)
        // Read both pipes while it runs, so a full pipe never blocks it, each
        // on a thread of its own: a blocking read on the cooperative pool
        // would hold one of its few threads for the whole run.
        async let stdout = onOwnThread { out.fileHandleForReading.readDataToEndOfFile() }
        async let stderr = onOwnThread { err.fileHandleForReading.readDataToEndOfFile() }
        let (o, e) = try await (stdout, stderr)
        try await onOwnThread { process.waitUntilExit() }
        return Outcome(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// Starts `darkroom arguments...` and leaves it running; output goes to `log`.
    public static func start(_ arguments: [String], log: URL, environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = Self.environment(environment)
        try runLogging(process, to: log)
        return process
    }

    /// The environment a test builds (``TiedProcess/environment(_:)``: none
    /// of the runner's settings) with `extra` over it, and a processing time
    /// limit no busy machine reaches by accident (``unhurriedProcessingTime``)
    /// unless `extra` names one; `--max-processing-seconds` wins over both,
    /// for the tests about that limit.
    static func environment(_ extra: [String: String]) -> [String: String] {
        var environment = TiedProcess.environment()
        environment["DARKROOM_MAX_PROCESSING_SECONDS"] = "\(unhurriedProcessingTime.components.seconds)"
        // The tests' HTTP clients keep idle connections 60 s (AsyncHTTPClient's
        // default); a server that closed them first (10 s) would race a
        // request sent on one. ConnectionTests is about that timeout.
        environment["DARKROOM_KEEP_ALIVE_TIMEOUT"] = "120"
        return environment.merging(extra) { $1 }
    }

    /// Starts `executable arguments...` in the cgroup whose `cgroup.procs`
    /// file is `procs` (it joins before it runs a line of its own), output
    /// to `log`.
    public static func start(_ executable: URL, _ arguments: [String], joining procs: URL, log: URL) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "echo $$ > '\(procs.path)' && exec \"$@\"", "sh", executable.path] + arguments
        process.environment = environment([:])
        try runLogging(process, to: log)
        return process
    }

    /// Runs `process` with its output and errors written to `log` (made anew).
    public static func runLogging(_ process: Process, to log: URL) throws {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        process.standardOutput = handle
        process.standardError = handle
        if process.environment == nil { process.environment = TiedProcess.environment() }
        try TiedProcess.run(process)
    }

    /// Sends `signal` and waits (without blocking a thread) for the process
    /// to end, up to `seconds`; kills it if it has not. Returns its status.
    @discardableResult
    public static func stop(_ process: Process, signal: Int32 = SIGTERM, seconds: Double = 15) async -> Int32? {
        // Never started (a test that failed before it): nothing to stop,
        // and Foundation traps on the status of a process not launched.
        guard process.processIdentifier != 0 else { return nil }
        guard process.isRunning else { return process.terminationStatus }
        kill(process.processIdentifier, signal)
        let deadline = ContinuousClock.now + .seconds(seconds)
        await polling {
            while process.isRunning, ContinuousClock.now < deadline {
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            return nil
        }
        return process.terminationStatus
    }
}

/// Runs a command-line tool (pdfinfo, pdfimages...) and returns its output,
/// on a thread of its own (the read and the wait block).
public func runTool(_ path: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, output: String) {
    try await onOwnThread {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = TiedProcess.environment(environment)
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try TiedProcess.run(process)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
