public import Foundation

/// A pids cgroup a test starts a process in: at most so many threads and
/// processes, a limit the kernel enforces on root too (unlike
/// RLIMIT_NPROC), so a regression that starts threads without end fails
/// its test and leaves the machine alone. cgroup v2 where its pids
/// controller is there, else v1's.
public struct TaskCgroup: Sendable {
    public let folder: URL

    /// Makes a cgroup of at most `maxTasks` tasks; nil where this machine
    /// lets no one make one (not root, or no pids controller mounted).
    public static func make(maxTasks: Int) -> TaskCgroup? {
        let name = "darkroom-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        for (root, version1) in [("/sys/fs/cgroup", false), ("/sys/fs/cgroup/pids", true)] {
            if !version1 {
                guard let controllers = try? String(contentsOfFile: root + "/cgroup.controllers", encoding: .utf8),
                      controllers.split(whereSeparator: \.isWhitespace).contains("pids")
                else { continue }
            }
            let folder = URL(fileURLWithPath: root).appendingPathComponent(name)
            guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)) != nil else { continue }
            let cgroup = TaskCgroup(folder: folder)
            guard (try? "\(maxTasks)".write(to: folder.appendingPathComponent("pids.max"), atomically: false, encoding: .utf8)) != nil else {
                cgroup.remove()
                continue
            }
            Variants.say("a pids cgroup of \(maxTasks) tasks (cgroup v\(version1 ? 1 : 2)) that the kernel enforces")
            return cgroup
        }
        Variants.say("no pids cgroup can be made here: the thread cap is not checked")
        return nil
    }

    /// Starts `executable arguments...` inside the cgroup (it joins before
    /// it runs a line of its own), output to `log`.
    public func start(_ executable: URL, _ arguments: [String], log: URL) throws -> Process {
        try DarkroomProcess.start(executable, arguments, joining: folder.appendingPathComponent("cgroup.procs"), log: log)
    }

    /// How many times a task could not be made for the limit.
    public var refusedTasks: Int {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("pids.events"), encoding: .utf8) else { return 0 }
        let line = text.split(separator: "\n").first { $0.hasPrefix("max ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// Removes the cgroup, once its processes have ended.
    public func remove() {
        rmdir(folder.path)
    }
}
