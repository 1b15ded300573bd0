// darkroom-bench: library-level benchmarks that print their figures.
//
//   darkroom-bench queue [--items N] [--concurrency N]
//
// What a user sees of cache hits under load is measured over HTTP, by the
// probe in bench/servers.py.
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
default:
    print("usage: darkroom-bench queue [--items N] [--concurrency N]")
    exit(2)
}
