public import Foundation
import DarkroomImaging

/// Starts the programs tests run (servers, stores, proxies, browsers) so
/// that they die with the test process, however it ends: a test process
/// that traps or is killed leaves no server behind, and no pipe held open
/// by an orphan keeps `swift test` waiting for it.
///
/// Each program is started through `setpriv --pdeathsig KILL`, which asks
/// the kernel to send SIGKILL to it when its parent ends; the mark survives
/// the `exec` into the program. The kernel sends it when the *thread* that
/// started the child ends, not the process, so every start happens on one
/// thread that lives as long as the test process.
public enum TiedProcess {
    static let setpriv = "/usr/bin/setpriv"

    /// Runs `process` (its executable and arguments as set) tied to this
    /// process's life. Throws what `Process.run()` throws.
    public static func run(_ process: Process) throws {
        let executable = process.executableURL?.path ?? ""
        process.arguments = ["--pdeathsig", "KILL", "--", executable] + (process.arguments ?? [])
        process.executableURL = URL(fileURLWithPath: setpriv)
        let box = SendableProcess(process)
        try Spawner.shared.perform { try box.process.run() }
    }

    /// The environment a test gives a program it starts: nothing of the
    /// runner's (no `OTEL_*`, `IMGPROXY_*`, `AWS_*`, `DARKROOM_*` that
    /// would change what the program does or where it sends), only what
    /// finding programs and libraries and the sanitizers need, and `extra`.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        let runner = ProcessInfo.processInfo.environment
        var environment = ["PATH": runner["PATH"] ?? "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"]
        for (name, value) in runner where kept(name) { environment[name] = value }
        return environment.merging(extra) { $1 }
    }

    private static func kept(_ name: String) -> Bool {
        ["HOME", "TMPDIR", "LD_LIBRARY_PATH"].contains(name)
            || ["ASAN_", "UBSAN_", "TSAN_", "LSAN_"].contains { name.hasPrefix($0) }
    }
}

/// `Process` is handed to the spawning thread and back; only one thread
/// uses it at a time.
private struct SendableProcess: @unchecked Sendable {
    let process: Process
    init(_ process: Process) { self.process = process }
}

/// One thread, started once, that runs every child start and never ends.
private final class Spawner: Sendable {
    static let shared = Spawner()

    private let jobs = Locked<[@Sendable () -> Void]>([])
    private let waiting = DispatchSemaphore(value: 0)

    private init() {
        let thread = Thread { [self] in
            while true {
                waiting.wait()
                let job = jobs.withLock { $0.removeFirst() }
                job()
            }
        }
        thread.name = "test-process-spawner"
        thread.start()
    }

    /// Runs `body` on the spawning thread and waits for it (a start takes
    /// milliseconds).
    func perform(_ body: @escaping @Sendable () throws -> Void) throws {
        let outcome = Locked<Result<Void, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        jobs.withLock { $0.append {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        } }
        waiting.signal()
        done.wait()
        try outcome.withLock { $0! }.get()
    }
}
