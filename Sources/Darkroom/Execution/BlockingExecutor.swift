import NIOPosix
import Synchronization

/// Runs blocking work (libvips, cairo, file I/O) on dedicated threads.
///
/// Swift's cooperative pool has one thread per core, and an event loop serves
/// many connections: a libvips call that blocks either of them stalls
/// everything else. Work sent here runs on a `NIOThreadPool` instead.
///
/// The pool runs jobs first in, first out; priorities are decided before work
/// reaches it, by the queues in front of it.
public struct BlockingExecutor: Sendable {
    let pool: NIOThreadPool
    /// How many jobs were sent here: what a test counts to see how often a
    /// request leaves the cooperative pool.
    let trips = TripCount()

    final class TripCount: Sendable {
        let value = Atomic<Int>(0)
    }

    /// An executor on a pool of its own, with `threads` threads. The pool
    /// lives as long as the process.
    public init(threads: Int) {
        let pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
        self.pool = pool
    }

    /// Stops the pool's threads once their work is done. Only for executors
    /// made with ``init(threads:)``.
    public func shutdown() async {
        guard pool !== NIOThreadPool.singleton else { return }
        try? await pool.shutdownGracefully()
    }

    /// An executor on NIO's shared pool (one thread per core).
    public static let shared = BlockingExecutor(pool: .singleton)

    init(pool: NIOThreadPool) {
        self.pool = pool
    }

    /// Runs `work` on a pool thread and returns its result.
    ///
    /// Cancelling the calling task does not stop `work` once it has started;
    /// work that must stop early checks a flag or kill switch of its own.
    public func run<T: Sendable, E: Error>(_ work: @escaping @Sendable () throws(E) -> T) async throws -> T {
        trips.value.add(1, ordering: .relaxed)
        return try await pool.runIfActive { () throws -> T in try work() }
    }
}
