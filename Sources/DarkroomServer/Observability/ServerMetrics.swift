import Darkroom
import Metrics
import Prometheus

/// One application's Prometheus registry and the factory that writes into
/// it: what its `/metrics` shows.
///
/// Each application has its own, rather than the process-wide
/// `MetricsSystem` (which can be bootstrapped once per process): two
/// servers in one process, as a test suite runs them, each see only their
/// own pipeline's, queues' and requests' figures.
struct ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    let factory: PrometheusMetricsFactory

    init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                                   .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10)]
        self.factory = factory
    }

    /// Memory figures, read when /metrics is asked: the process's resident
    /// size, the memory cache's bytes and entries, the source bytes
    /// waiting for processing and the downloads waiting for room under
    /// their bound.
    func recordMemory(of pipeline: ImagePipeline) {
        let status = pipeline.status
        let cache = status.memoryCache
        Gauge(label: "darkroom_process_resident_memory_bytes", factory: factory).record(Allocator.residentBytes())
        Gauge(label: "darkroom_memory_cache_bytes", factory: factory).record(cache.totalCost)
        Gauge(label: "darkroom_memory_cache_entries", factory: factory).record(cache.count)
        Gauge(label: "darkroom_memory_cache_limit_bytes", factory: factory).record(status.memoryCacheLimit)
        Gauge(label: "darkroom_source_bytes_in_flight", factory: factory).record(status.sourceBytesInFlight)
        Gauge(label: "darkroom_downloads_waiting_for_room", factory: factory).record(status.downloadsWaitingForRoom)
    }

    /// Open connections that have asked for image work, and image requests
    /// whose work is under way: both return to zero when clients leave.
    func recordConnections(_ watch: ConnectionWatch) {
        Gauge(label: "darkroom_connections_watched", factory: factory).record(watch.connectionCount)
        Gauge(label: "darkroom_image_requests_in_progress", factory: factory).record(watch.requestCount)
    }

    /// What strangers can grow, against its bound: the memory of failed
    /// sources, the parsed-URL cache, and the connections held and refused.
    func recordFrontDoor(pipeline: ImagePipeline, parsedURLs: ParsedURLCache?, limits: ConnectionLimits?) {
        let failures = pipeline.failureMemoryBytes
        Gauge(label: "darkroom_failure_memory_bytes", factory: factory).record(failures.held)
        Gauge(label: "darkroom_failure_memory_limit_bytes", factory: factory).record(failures.limit)
        if let parsedURLs {
            Gauge(label: "darkroom_parsed_url_cache_bytes", factory: factory).record(parsedURLs.bytes)
            Gauge(label: "darkroom_parsed_url_cache_limit_bytes", factory: factory).record(parsedURLs.maxBytes)
        }
        if let limits {
            let counts = limits.counts
            Gauge(label: "darkroom_connections_open", factory: factory).record(counts.open)
            Gauge(label: "darkroom_connections_limit", factory: factory).record(limits.configuration.maxConnections)
            Gauge(label: "darkroom_connections_refused", factory: factory).record(counts.refused)
        }
    }

    /// The registry in Prometheus' text format.
    func text() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
