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
                try? await Task.sleep(for: min(.seconds(30), books.lifetime))
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
