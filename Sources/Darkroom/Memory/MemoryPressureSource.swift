public import Foundation

/// One look at how much memory pressure the process is under.
public struct MemoryReading: Sendable, Hashable {
    /// Bytes in use by the cgroup, and its limit, when it has one.
    public var usage: Int?
    public var limit: Int?
    /// The share of the last 10 s in which some task stalled on memory
    /// (`some avg10` of the pressure file), in percent.
    public var stallPercent: Double?

    public init(usage: Int? = nil, limit: Int? = nil, stallPercent: Double? = nil) {
        self.usage = usage
        self.limit = limit
        self.stallPercent = stallPercent
    }

    /// Usage as a fraction of the limit.
    public var fractionUsed: Double? {
        guard let usage, let limit, limit > 0 else { return nil }
        return Double(usage) / Double(limit)
    }
}

/// Where readings come from: Linux itself by default, or a stand-in in tests.
public protocol MemoryPressureSource: Sendable {
    func read() -> MemoryReading
}

/// Reads the memory files of this process's cgroup: cgroup v2's
/// `memory.current` and `memory.max`, or v1's `memory.usage_in_bytes` and
/// `memory.limit_in_bytes` where the memory controller is still on v1; and
/// the pressure-stall file (`memory.pressure` of the cgroup, else
/// `/proc/pressure/memory`), where they exist.
///
/// Linux has no "memory warning" notification like the one the seeds react
/// to; these files are what a container's limit and the kernel's reclaim
/// actually look like from inside.
public struct LinuxMemoryPressureSource: MemoryPressureSource {
    let cgroupFolder: URL?
    /// Which file names the folder uses.
    let isVersion1: Bool

    public init() {
        if let folder = Self.ownCgroupFolder() {
            (cgroupFolder, isVersion1) = (folder, false)
        } else if let folder = Self.ownVersion1MemoryFolder() {
            (cgroupFolder, isVersion1) = (folder, true)
        } else {
            (cgroupFolder, isVersion1) = (nil, false)
        }
    }

    /// A source reading a given cgroup folder (for tests, or another
    /// cgroup): v2's files, or with `version1` the v1 memory controller's.
    public init(cgroupFolder: URL, version1: Bool = false) {
        self.cgroupFolder = cgroupFolder
        isVersion1 = version1
    }

    public func read() -> MemoryReading {
        var reading = MemoryReading()
        if let folder = cgroupFolder, isVersion1 {
            reading.usage = Self.number(in: folder.appendingPathComponent("memory.usage_in_bytes"))
            // No limit reads as a number near 2^63.
            reading.limit = Self.number(in: folder.appendingPathComponent("memory.limit_in_bytes")).flatMap { $0 < 1 << 60 ? $0 : nil }
        } else if let folder = cgroupFolder {
            reading.usage = Self.number(in: folder.appendingPathComponent("memory.current"))
            reading.limit = Self.number(in: folder.appendingPathComponent("memory.max"))   // "max": no limit, nil
            reading.stallPercent = Self.someAverage10(in: folder.appendingPathComponent("memory.pressure"))
        }
        if reading.stallPercent == nil {
            reading.stallPercent = Self.someAverage10(in: URL(fileURLWithPath: "/proc/pressure/memory"))
        }
        return reading
    }

    /// `/sys/fs/cgroup` plus the path in `/proc/self/cgroup` ("0::/path").
    static func ownCgroupFolder() -> URL? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return nil }
        let path = String(line.dropFirst(3))
        let folder = URL(fileURLWithPath: "/sys/fs/cgroup").appendingPathComponent(path)
        return FileManager.default.fileExists(atPath: folder.appendingPathComponent("memory.current").path) ? folder : nil
    }

    /// The v1 memory controller's folder: `/sys/fs/cgroup/memory` plus the
    /// path of the "N:memory:/path" line.
    static func ownVersion1MemoryFolder() -> URL? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3, fields[1].split(separator: ",").contains("memory") else { continue }
            let folder = URL(fileURLWithPath: "/sys/fs/cgroup/memory").appendingPathComponent(String(fields[2]))
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent("memory.limit_in_bytes").path) ? folder : nil
        }
        return nil
    }

    static func number(in file: URL) -> Int? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Parses "some avg10=1.23 avg60=... total=..." from a pressure file.
    static func someAverage10(in file: URL) -> Double? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        return parseSomeAverage10(text)
    }

    static func parseSomeAverage10(_ text: String) -> Double? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") }) else { return nil }
        for field in line.split(separator: " ") where field.hasPrefix("avg10=") {
            return Double(field.dropFirst("avg10=".count))
        }
        return nil
    }
}
