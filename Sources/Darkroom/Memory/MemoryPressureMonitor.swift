import Foundation
public import Logging
import Synchronization

/// Watches memory pressure on a timer and tells the pipeline when it is high.
///
/// Pressure is high when the cgroup uses more than ``Thresholds/fractionUsed``
/// of its limit, or when tasks stalled on memory more than
/// ``Thresholds/stallPercent`` of the last 10 seconds. While it stays high,
/// the reaction repeats at most once per interval.
///
/// ```swift
/// let monitor = MemoryPressureMonitor(pipeline: pipeline)
/// let watching = Task { await monitor.run() }
/// ```
public struct MemoryPressureMonitor: Sendable {
    public struct Thresholds: Sendable, Hashable {
        public var fractionUsed = 0.9
        public var stallPercent = 10.0
        public init() {}
    }

    public let source: any MemoryPressureSource
    public let thresholds: Thresholds
    public let interval: Duration
    private let react: @Sendable (MemoryReading) -> Void

    /// Reacts by calling ``ImagePipeline/handleMemoryPressure()``.
    public init(pipeline: ImagePipeline, source: any MemoryPressureSource = LinuxMemoryPressureSource(),
                thresholds: Thresholds = Thresholds(), interval: Duration = .seconds(2), logger: Logger? = nil) {
        self.init(source: source, thresholds: thresholds, interval: interval) { reading in
            logger?.warning("memory pressure: emptying the memory cache and cancelling waiting low-priority work",
                            metadata: ["used": "\(reading.fractionUsed.map { String(format: "%.2f", $0) } ?? "?")",
                                       "stall_avg10": "\(reading.stallPercent.map { "\($0)" } ?? "?")"])
            pipeline.handleMemoryPressure()
        }
    }

    public init(source: any MemoryPressureSource, thresholds: Thresholds = Thresholds(), interval: Duration = .seconds(2),
                react: @escaping @Sendable (MemoryReading) -> Void) {
        self.source = source
        self.thresholds = thresholds
        self.interval = interval
        self.react = react
    }

    /// Whether a reading counts as pressure.
    public func isUnderPressure(_ reading: MemoryReading) -> Bool {
        if let used = reading.fractionUsed, used >= thresholds.fractionUsed { return true }
        if let stall = reading.stallPercent, stall >= thresholds.stallPercent { return true }
        return false
    }

    /// Reads once, and reacts if under pressure. Returns whether it did.
    @discardableResult
    public func check() -> Bool {
        let reading = source.read()
        guard isUnderPressure(reading) else { return false }
        react(reading)
        return true
    }

    /// Checks every ``interval`` until the calling task is cancelled.
    public func run() async {
        while !Task.isCancelled {
            check()
            try? await Task.sleep(for: interval)
        }
    }
}
