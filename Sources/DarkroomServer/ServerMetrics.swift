import Darkroom
import Metrics
import Prometheus

/// The process's Prometheus registry. swift-metrics can be bootstrapped
/// once per process, so every application in it shares this one.
enum ServerMetrics {
    static let registry: PrometheusCollectorRegistry = {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                                   .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2), .seconds(5), .seconds(10)]
        MetricsSystem.bootstrap(factory)
        return registry
    }()

    /// Memory figures, read when /metrics is asked: the process's resident
    /// size, the memory cache's bytes and entries, and the source bytes
    /// waiting for processing.
    static func recordMemory(of pipeline: ImagePipeline) {
        let cache = pipeline.memoryCache.statistics
        Gauge(label: "darkroom_process_resident_memory_bytes").record(Allocator.residentBytes())
        Gauge(label: "darkroom_memory_cache_bytes").record(cache.totalCost)
        Gauge(label: "darkroom_memory_cache_entries").record(cache.count)
        Gauge(label: "darkroom_memory_cache_limit_bytes").record(pipeline.memoryCache.configuration.costLimit)
        Gauge(label: "darkroom_source_bytes_in_flight").record(pipeline.sourceBytesInFlight)
    }

    /// Open connections that have asked for image work, and image requests
    /// whose work is under way: both return to zero when clients leave.
    static func recordConnections(_ watch: ConnectionWatch) {
        Gauge(label: "darkroom_connections_watched").record(watch.connectionCount)
        Gauge(label: "darkroom_image_requests_in_progress").record(watch.requestCount)
    }

    /// Makes sure the registry is bootstrapped before any metric is made.
    static func start() { _ = registry }

    static func text() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
