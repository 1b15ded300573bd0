import Darkroom
import Foundation
import Synchronization

/// Trivial items through Darkroom's WorkQueue and through Foundation's
/// OperationQueue at the same concurrency limit, side by side, best of three.
enum QueueBenchmark {
    static func run(items: Int, concurrency: Int) async {
        print("queue: \(items) trivial items, concurrency \(concurrency), best of 3 rounds, interleaved")
        var ours: [Double] = [], foundation: [Double] = []
        for _ in 0..<3 {
            ours.append(await workQueue(items: items, concurrency: concurrency))
            foundation.append(operationQueue(items: items, concurrency: concurrency))
        }
        let a = ours.max()!, b = foundation.max()!
        print(String(format: "  WorkQueue (async items)      %10.0f items/s", a))
        print(String(format: "  OperationQueue               %10.0f items/s", b))
        print(String(format: "  ratio WorkQueue / OperationQueue: %.2f", a / b))
    }

    static func workQueue(items: Int, concurrency: Int) async -> Double {
        let queue = WorkQueue(name: "bench", maxConcurrent: concurrency)
        let done = Atomic<Int>(0)
        let start = ContinuousClock.now
        await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
            for _ in 0..<items {
                queue.add { _ in
                    if done.add(1, ordering: .relaxed).newValue == items { finished.resume() }
                }
            }
        }
        return Double(items) / (ContinuousClock.now - start).seconds
    }

    static func operationQueue(items: Int, concurrency: Int) -> Double {
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = concurrency
        let done = Atomic<Int>(0)
        let start = ContinuousClock.now
        for _ in 0..<items {
            queue.addOperation { done.add(1, ordering: .relaxed) }
        }
        queue.waitUntilAllOperationsAreFinished()
        precondition(done.load(ordering: .relaxed) == items)
        return Double(items) / (ContinuousClock.now - start).seconds
    }
}
