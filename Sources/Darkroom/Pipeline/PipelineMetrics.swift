import Metrics

/// The pipeline's counters and timers, through swift-metrics, made by the
/// factory its configuration names (the server gives each application one
/// of its own, so two servers in one process never mix their figures).
struct PipelineMetrics: Sendable {
    enum Cache: String, CaseIterable { case memory, disk, sourceDisk = "source_disk" }

    /// Made once: a cache hit is the hot path, and making a counter asks the
    /// metrics backend to look it up under its lock.
    private let hits: [Cache: Counter]
    private let misses: [Cache: Counter]
    /// Made at start, so that a dashboard's rate starts from zero rather
    /// than from no series at all.
    private let coalescedDownloads: Counter
    private let coalescedProcessing: Counter
    private let downloadedBytes: Counter
    private let pressureEvents: Counter
    private let pressureCancelled: Counter
    let factory: any MetricsFactory

    init(factory: any MetricsFactory) {
        self.factory = factory
        func counters(_ label: String) -> [Cache: Counter] {
            Dictionary(uniqueKeysWithValues: Cache.allCases.map {
                ($0, Counter(label: label, dimensions: [("cache", $0.rawValue)], factory: factory))
            })
        }
        hits = counters("darkroom_cache_hits_total")
        misses = counters("darkroom_cache_misses_total")
        coalescedDownloads = Counter(label: "darkroom_coalesced_requests_total", dimensions: [("stage", "download")], factory: factory)
        coalescedProcessing = Counter(label: "darkroom_coalesced_requests_total", dimensions: [("stage", "process")], factory: factory)
        downloadedBytes = Counter(label: "darkroom_download_bytes_total", factory: factory)
        pressureEvents = Counter(label: "darkroom_memory_pressure_events_total", factory: factory)
        pressureCancelled = Counter(label: "darkroom_memory_pressure_cancelled_total", factory: factory)
    }

    func cache(_ cache: Cache, hit: Bool) {
        (hit ? hits : misses)[cache]?.increment()
    }

    enum Stage { case download, process }

    func coalesced(stage: Stage) {
        (stage == .download ? coalescedDownloads : coalescedProcessing).increment()
    }

    func downloaded(bytes: Int) {
        downloadedBytes.increment(by: bytes)
    }

    func failure(_ error: DarkroomError) {
        Counter(label: "darkroom_failures_total", dimensions: [("reason", error.kind.description)], factory: factory).increment()
    }

    func stage(_ stage: String, since start: ContinuousClock.Instant) {
        Timer(label: "darkroom_stage_duration_seconds", dimensions: [("stage", stage)], factory: factory).recordInterval(since: start)
    }

    func memoryPressure(cancelled: Int) {
        pressureEvents.increment()
        pressureCancelled.increment(by: cancelled)
    }
}

extension Timer {
    func recordInterval(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
