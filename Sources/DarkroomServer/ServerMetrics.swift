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

    /// Makes sure the registry is bootstrapped before any metric is made.
    static func start() { _ = registry }

    static func text() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
