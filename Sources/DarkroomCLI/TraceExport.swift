import Logging
import OTel
import ServiceLifecycle

/// OpenTelemetry traces for `darkroom serve`, off unless the usual `OTEL_*`
/// variables ask for them. Only traces: Darkroom's metrics stay on
/// /metrics and its logs on standard error.
enum TraceExport {
    /// Whether `environment` asks for traces: an OTLP endpoint (for every
    /// signal or for traces), or `OTEL_TRACES_EXPORTER` naming an exporter;
    /// never with `OTEL_SDK_DISABLED=true`, `OTEL_TRACES_EXPORTER=none` or
    /// `OTEL_TRACES_SAMPLER=always_off` (tracing costs the hit path its
    /// event-loop shortcut, so it is not turned on to record nothing).
    static func isRequested(_ environment: [String: String]) -> Bool {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0.lowercased() } }
        if value("OTEL_SDK_DISABLED") == "true" || value("OTEL_TRACES_EXPORTER") == "none" || value("OTEL_TRACES_SAMPLER") == "always_off" {
            return false
        }
        return value("OTEL_EXPORTER_OTLP_ENDPOINT") != nil || value("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != nil
            || value("OTEL_TRACES_EXPORTER") != nil
    }

    /// Makes OpenTelemetry the process's tracer, configured by the `OTEL_*`
    /// variables in `environment` (endpoint, protocol, service name, sampler,
    /// batching), and returns the service that exports the spans: it must
    /// run for as long as the server, and stop after it, so the last spans
    /// leave. The service is named "darkroom" unless `OTEL_SERVICE_NAME` says.
    static func bootstrap(environment: [String: String], logger: Logger) throws -> any Service {
        var configuration = OTel.Configuration.default
        configuration.serviceName = "darkroom"
        configuration.diagnosticLogger = .custom(logger)
        configuration.logs.enabled = false
        configuration.metrics.enabled = false
        // Read here, already: these would otherwise turn metrics and logs
        // back on, and they replace the server's own.
        var environment = environment
        for name in ["OTEL_SDK_DISABLED", "OTEL_METRICS_EXPORTER", "OTEL_LOGS_EXPORTER"] { environment[name] = nil }
        return try OTel.bootstrap(configuration: configuration, environment: environment)
    }
}
