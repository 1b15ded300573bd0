import Metrics

/// A queue's gauges, waiting and running, labelled with its name: the
/// public ``WorkQueue``s and the pipeline's downloads and runs alike.
struct QueueGauges: Sendable {
    private let waiting: Gauge
    private let running: Gauge

    init(name: String, factory: any MetricsFactory) {
        waiting = Gauge(label: "darkroom_queue_waiting", dimensions: [("queue", name)], factory: factory)
        running = Gauge(label: "darkroom_queue_running", dimensions: [("queue", name)], factory: factory)
    }

    func record(_ counts: WorkQueueCounts) {
        waiting.record(counts.waiting)
        running.record(counts.running)
    }
}
