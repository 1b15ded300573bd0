public import Foundation
import Synchronization
import DarkroomImaging

/// The decoder-hostile files scripts/make-hostile writes (many scans, huge
/// coefficient buffers, bombs that inflate), made once per test process
/// into a folder of their own.
public enum HostileShapes {
    private static let made = Locked<Task<URL, any Error>?>(nil)

    /// The folder holding every shape; the first caller makes them.
    public static func folder() async throws -> URL {
        let task = made.withLock { task in
            if let task { return task }
            let made = Task<URL, any Error> {
                let folder = try Fixtures.temporaryFolder("darkroom-hostile-shapes")
                let script = Corpus.packageRoot.appendingPathComponent("scripts/make-hostile").path
                let run = try await runTool("/usr/bin/python3", [script, folder.path])
                guard run.status == 0 else { throw HostileShapesError("scripts/make-hostile failed: \(run.output)") }
                return folder
            }
            task = made
            return made
        }
        return try await task.value
    }

    public static func url(_ name: String) async throws -> URL {
        try await folder().appendingPathComponent(name)
    }
}

struct HostileShapesError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A process's resident memory, from /proc.
public enum ProcessMemory {
    /// The peak resident size (VmHWM) and the current one (VmRSS), in bytes.
    public static func peakAndCurrent(of pid: Int32) -> (peak: Int, current: Int)? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
                .flatMap { $0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first }
                .flatMap { Int($0) }.map { $0 << 10 }
        }
        guard let peak = field("VmHWM"), let current = field("VmRSS") else { return nil }
        return (peak, current)
    }

    /// Starts measuring a new peak from the current size (writing 5 to
    /// clear_refs resets VmHWM); false where the kernel does not allow it.
    @discardableResult
    public static func resetPeak(of pid: Int32) -> Bool {
        (try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)) != nil
    }
}
