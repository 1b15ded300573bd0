// darkroom-bench: library-level benchmarks that print their figures.
//
//   darkroom-bench queue [--items N] [--concurrency N]
//   darkroom-bench hit-latency [--hits N]
//
// Build in release mode: swift build -c release --product darkroom-bench
import Darkroom
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, default value: Int) -> Int {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count, let n = Int(arguments[i + 1]) else { return value }
    return n
}

switch arguments.first {
case "queue":
    await QueueBenchmark.run(items: option("--items", default: 100_000), concurrency: option("--concurrency", default: 2))
case "hit-latency":
    try await HitLatencyBenchmark.run(hits: option("--hits", default: 10_000))
default:
    print("usage: darkroom-bench queue [--items N] [--concurrency N] | hit-latency [--hits N]")
    exit(2)
}
