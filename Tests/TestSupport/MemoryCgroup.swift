public import Foundation

/// A memory cgroup a test makes for a process it starts: a real limit
/// that the kernel enforces (and OOM-kills past), as a container's.
/// cgroup v2 where its memory controller is there, else v1's.
public struct MemoryCgroup: Sendable {
    public let folder: URL
    public let isVersion1: Bool

    /// Makes a cgroup limited to `bytes`; nil where this machine lets no
    /// one make one (not root, or no memory controller mounted).
    public static func make(limit bytes: Int) -> MemoryCgroup? {
        let name = "darkroom-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let candidates: [(root: String, version1: Bool)] = [("/sys/fs/cgroup", false), ("/sys/fs/cgroup/memory", true)]
        for (root, version1) in candidates {
            if !version1 {
                guard let controllers = try? String(contentsOfFile: root + "/cgroup.controllers", encoding: .utf8),
                      controllers.split(separator: " ").contains(where: { $0.trimmingCharacters(in: .whitespacesAndNewlines) == "memory" })
                else { continue }
            }
            let folder = URL(fileURLWithPath: root).appendingPathComponent(name)
            guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)) != nil else { continue }
            let cgroup = MemoryCgroup(folder: folder, isVersion1: version1)
            let file = version1 ? "memory.limit_in_bytes" : "memory.max"
            guard cgroup.write(file, "\(bytes)") else {
                cgroup.remove()
                continue
            }
            if !version1 { _ = cgroup.write("memory.swap.max", "0") } else { _ = cgroup.write("memory.swappiness", "0") }
            Variants.say("a memory cgroup of \(bytes >> 20) MiB (cgroup v\(version1 ? 1 : 2)) that the kernel enforces")
            return cgroup
        }
        Variants.say("no memory cgroup can be made here: the peak resident size is checked instead")
        return nil
    }

    private func write(_ file: String, _ value: String) -> Bool {
        (try? value.write(to: folder.appendingPathComponent(file), atomically: false, encoding: .utf8)) != nil
    }

    /// Starts `executable arguments...` inside the cgroup (it joins before
    /// it runs a line of its own), output to `log`.
    public func start(_ executable: URL, _ arguments: [String], log: URL) throws -> Process {
        try DarkroomProcess.start(executable, arguments, joining: folder.appendingPathComponent("cgroup.procs"), log: log)
    }

    /// How many times the kernel killed a process of the cgroup for memory.
    public var oomKills: Int {
        let file = isVersion1 ? "memory.oom_control" : "memory.events"
        guard let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else { return 0 }
        let line = text.split(separator: "\n").first { $0.hasPrefix("oom_kill ") }
        return line.flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
    }

    /// The most memory the cgroup has used, in bytes.
    public var peakBytes: Int? {
        let file = isVersion1 ? "memory.max_usage_in_bytes" : "memory.peak"
        return (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Removes the cgroup, once its processes have ended.
    public func remove() {
        rmdir(folder.path)
    }
}
