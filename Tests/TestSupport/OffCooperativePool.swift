import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
public import Testing
import DarkroomImaging

/// Threads of their own for tests that block: a libvips run, a decode to
/// compare pixels, a loop over a page's pixels.
///
/// Swift Testing runs a synchronous test, and the stretches of an
/// asynchronous one between its suspensions, on the cooperative pool, which
/// has one thread per core for the whole test process. A test
/// that holds one for seconds stalls every other test's continuations: a
/// download's chunks wait to be read, a timer's work waits to run, and tests
/// whose subject is timing see the stall as the product's. Suites marked
/// ``Trait/offCooperativePool`` run on these threads instead, so the pool
/// stays free for the tests that wait on the network or the clock.
public final class BlockingTestExecutor: TaskExecutor, @unchecked Sendable {
    public static let shared = BlockingTestExecutor(threads: max(4, ProcessInfo.processInfo.activeProcessorCount * 2))

    private let condition = NSCondition()
    /// Guarded by `condition`.
    private var jobs: [UnownedJob] = []

    private init(threads: Int) {
        for _ in 0..<threads {
            // The one executor lives as long as the process, as its threads do.
            Thread { [self] in
                self.threads.withLock { _ = $0.insert(pthread_self()) }
                self.serve()
            }.start()
        }
    }

    private let threads = Locked<Set<pthread_t>>([])

    /// Whether the calling code runs on one of these threads.
    public var isCurrent: Bool {
        threads.withLock { $0.contains(pthread_self()) }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func serve() {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}

/// Runs each test of a suite on ``BlockingTestExecutor``'s threads.
public struct OffCooperativePool: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(BlockingTestExecutor.shared) { try await function() }
    }
}

extension Trait where Self == OffCooperativePool {
    /// The suite's tests block (libvips, pixel loops): they run on threads
    /// of their own, not on the cooperative pool the other tests share.
    public static var offCooperativePool: Self { Self() }
}
