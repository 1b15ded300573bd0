@testable import DarkroomCLI
import Darkroom
import DarkroomServer
import Foundation
import Testing
import TestSupport
import Yams

/// The Kubernetes manifests in deploy/kubernetes set only variables the
/// server reads, with values it accepts, and run the image's commands.
@Suite struct ManifestTests {
    static let folder = Corpus.packageRoot.appendingPathComponent("deploy/kubernetes")

    /// Every document of every manifest.
    static func documents() throws -> [(file: String, document: [String: Any])] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }.sorted()
        return try files.flatMap { file in
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            return try Yams.load_all(yaml: text).compactMap { $0 as? [String: Any] }.map { (file, $0) }
        }
    }

    /// The containers of a Deployment's or a Job's pod.
    static func containers(of document: [String: Any]) -> [[String: Any]] {
        let spec = document["spec"] as? [String: Any]
        let pod = (spec?["template"] as? [String: Any])?["spec"] as? [String: Any]
        return pod?["containers"] as? [[String: Any]] ?? []
    }

    /// The variables `darkroom serve` reads: its table's (``ServeSettings``).
    static var serveVariables: Set<String> {
        let text = ServeSettings.all.map(\.variables).joined(separator: " ") + " " + ServeCommand.encoderSettingNames.map { "DARKROOM_\($0)" }.joined(separator: " ")
        return Set(text.matches(of: try! Regex(#"DARKROOM_[A-Z0-9_]+"#)).map { String(text[$0.range]) })
    }

    @Test func everyServerVariableIsOneTheServerReadsWithAValueItAccepts() throws {
        let documents = try Self.documents()
        let kinds = Set(documents.compactMap { $0.document["kind"] as? String })
        #expect(kinds.isSuperset(of: ["Deployment", "Service", "PodDisruptionBudget", "Job"]), "\(kinds)")
        let known = Self.serveVariables
        #expect(known.contains("DARKROOM_PORT") && known.contains("DARKROOM_METRICS_BIND") && known.count > 40, "\(known.sorted())")

        let deployments = documents.filter { $0.document["kind"] as? String == "Deployment" }
        #expect(deployments.count == 1)
        for (file, deployment) in deployments {
            for container in Self.containers(of: deployment) {
                let variables = container["env"] as? [[String: Any]] ?? []
                var environment: [String: String] = [:]
                for variable in variables {
                    let name = try #require(variable["name"] as? String)
                    if name.hasPrefix("DARKROOM_") {
                        #expect(known.contains(name), "\(file): \(name) is not a variable darkroom serve reads")
                    }
                    // Secrets stand in as values of the right shape.
                    environment[name] = (variable["value"] as? String) ?? (name.hasSuffix("KEY") || name.hasSuffix("SALT") ? "0123abcd" : "secret")
                }
                let configuration = try ServeCommand.parse([]).serverConfiguration(environment: environment)
                #expect(configuration.host == "0.0.0.0" && configuration.port == 8080)
                #expect(configuration.metricsAddress?.port == 9090)
                #expect(configuration.signatures.count == 1 && configuration.sharedCache != nil)
                #expect(TraceExport.isRequested(environment), "the OTEL_* variables turn traces on")

                // Probes on /health at the port served; the grace period
                // outlasts the server's own shutdown timeout.
                for probe in ["readinessProbe", "livenessProbe"] {
                    let get = (container[probe] as? [String: Any])?["httpGet"] as? [String: Any]
                    #expect(get?["path"] as? String == "/health", "\(probe)")
                }
                let pod = ((deployment["spec"] as? [String: Any])?["template"] as? [String: Any])?["spec"] as? [String: Any]
                let grace = try #require(pod?["terminationGracePeriodSeconds"] as? Int)
                #expect(Duration.seconds(grace) > configuration.shutdownTimeout)
                let limits = ((container["resources"] as? [String: Any])?["limits"] as? [String: Any])
                #expect(limits?["memory"] != nil, "a memory limit, which the server's defaults read from the cgroup")
                #expect((container["image"] as? String) == "localhost/darkroom:latest")
            }
        }
    }

    @Test func theJobRunsACommandTheCLIAccepts() throws {
        let jobs = try Self.documents().filter { $0.document["kind"] as? String == "Job" }
        #expect(!jobs.isEmpty)
        for (file, job) in jobs {
            for container in Self.containers(of: job) {
                let command = container["command"] as? [String] ?? []
                let arguments = container["args"] as? [String] ?? []
                #expect(command.first == "darkroom", "\(file)")
                // Parsed as the binary would parse it (the list is not
                // fetched). Outside a Job, the one thing missing is the
                // index each of the Job's pods is given.
                let env = container["env"] as? [[String: Any]] ?? []
                #expect(!env.contains { $0["name"] as? String == "JOB_COMPLETION_INDEX" }, "the Job sets it itself")
                do {
                    let parsed = try DarkroomCommand.parseAsRoot(Array(command.dropFirst()) + arguments)
                    #expect(parsed is FetchCommand, "\(file): \(type(of: parsed))")
                } catch {
                    let message = DarkroomCommand.message(for: error)
                    #expect(message.contains("JOB_COMPLETION_INDEX") && arguments.contains("--shard-count"), "\(file): \(message)")
                    #expect(ProcessInfo.processInfo.environment["JOB_COMPLETION_INDEX"] == nil)
                }
            }
        }
    }
}

/// Which environments turn `serve`'s traces on: OpenTelemetry's own
/// variables, as every OpenTelemetry SDK reads them.
@Suite struct TraceExportTests {
    @Test func theUsualVariablesTurnTracesOnAndOff() {
        let endpoint = ["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]
        #expect(!TraceExport.isRequested([:]))
        #expect(!TraceExport.isRequested(["OTEL_SERVICE_NAME": "darkroom"]), "a name alone exports nothing")
        #expect(TraceExport.isRequested(endpoint))
        #expect(TraceExport.isRequested(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"]))
        #expect(TraceExport.isRequested(["OTEL_TRACES_EXPORTER": "console"]))
        #expect(!TraceExport.isRequested(endpoint.merging(["OTEL_SDK_DISABLED": "true"]) { $1 }))
        #expect(!TraceExport.isRequested(endpoint.merging(["OTEL_TRACES_EXPORTER": "none"]) { $1 }))
        #expect(!TraceExport.isRequested(endpoint.merging(["OTEL_TRACES_SAMPLER": "always_off"]) { $1 }), "nothing would be recorded")
        #expect(!TraceExport.isRequested(["OTEL_EXPORTER_OTLP_ENDPOINT": ""]), "an empty variable is unset")
    }
}
