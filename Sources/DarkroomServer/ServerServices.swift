import Darkroom
import Logging
import ServiceLifecycle

/// Runs the memory-pressure monitor for as long as the server runs.
struct MemoryPressureService: Service {
    let monitor: MemoryPressureMonitor

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await monitor.run()
        }
    }
}

/// Closes gallery viewers whose page went away without saying so, and
/// removes photobooks that finished long enough ago.
struct ViewerSweeper: Service {
    let viewers: ViewerRegistry
    let books: BookJobs

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: min(.seconds(10), books.lifetime))
                await viewers.closeIdle(after: .seconds(120))
                books.sweep()
            }
        }
    }
}

/// Shuts the pipeline (its HTTP client) down when the server stops. Services
/// stop in reverse order, after the HTTP server has let in-flight requests
/// finish.
struct PipelineShutdownService: Service {
    let pipeline: ImagePipeline

    func run() async throws {
        try? await gracefulShutdown()
        await pipeline.shutdown()
    }
}

/// Gives memory back to the system after a burst of image work.
///
/// glibc's malloc keeps freed memory in its arenas for reuse; after a burst,
/// the resident size would stay at its peak. Every few seconds, once the
/// processing queue has gone idle after work, `malloc_trim` returns what is
/// free.
struct MemoryReturnService: Service {
    let pipeline: ImagePipeline
    var interval: Duration = .seconds(5)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var lastCompleted = -1
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                let counts = pipeline.status.processing
                let completed = counts.finished + counts.failed + counts.cancelled
                guard counts.running == 0, counts.waiting == 0, completed != lastCompleted else { continue }
                lastCompleted = completed
                // malloc_trim walks every arena (tens of milliseconds on a
                // big heap): kept off the cooperative threads.
                _ = try? await BlockingExecutor.shared.run { Allocator.returnFreeMemory() }
            }
        }
    }
}
