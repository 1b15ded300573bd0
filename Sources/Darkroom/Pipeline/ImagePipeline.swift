import Foundation
public import Logging
import Synchronization

/// Fetches, processes and caches images, running each piece of work once for
/// everyone who asks for it.
///
/// A request goes: memory cache (processed key) → disk cache (processed
/// key) → the shared result cache, if any → the process job, which waits for the data job (disk cache by
/// source key, then the network on the download queue) and then processes on
/// the filtration queue; results are stored on disk and in memory.
///
/// ```swift
/// let pipeline = try ImagePipeline()
/// let response = try await pipeline.image(for: ImageRequest(url: url, operations: [.sepia(intensity: 0.8)]))
/// ```
///
/// Both jobs are coalesced: one download per source and one processing run
/// per source + options, however many ask at once. A job's priority is its
/// waiters' highest; it is cancelled when its last waiter leaves.
public final class ImagePipeline: Sendable {
    public let configuration: Configuration
    /// The seed's download and filtration queues, as turns in the core,
    /// and the caches: inside the pipeline, read through ``status``.
    let downloadQueue: PipelineQueue
    let filtrationQueue: PipelineQueue
    let memoryCache: MemoryCache<String, ImageResponse>
    let diskCache: DiskCache?
    /// The result cache shared with other replicas, if one is configured.
    public let sharedCache: SharedResultCache?
    let loader: any DataLoading
    private let ownedLoader: DataLoader?
    private let s3Sources: S3SourceLoader?
    /// Disk reads and writes: threads of their own, so a cache hit never
    /// waits behind a filter.
    let io: BlockingExecutor
    /// The one lock over the jobs, their turns and the source bytes held.
    let core: PipelineCore
    let dataJobs: JobRegistry<SourceData>
    let processJobs: JobRegistry<ImageResponse>
    let failures: FailureMemory
    /// Disk writes that follow an answer instead of delaying it.
    let diskWrites = PendingWork()
    let sourceBytes: SourceBytesGate
    /// Uses of each source not read from disk, for ``Configuration/sourceMinUses``.
    let sourceUses = UseCounter()
    /// Sources downloaded lately, for ``Configuration/recentSourceBytes``.
    let recentSources: MemoryCache<String, SourceData>?
    let metrics: PipelineMetrics
    let logger: Logger
    private let nextWaiter = Atomic<UInt64>(1)

    /// - Parameters:
    ///   - loader: fetches sources; by default a ``DataLoader`` made from the
    ///     configuration, shut down by ``shutdown()``.
    ///   - logger: where the pipeline logs downloads and failures; by default
    ///     nowhere.
    /// - Throws: when the disk cache's folder cannot be created.
    public convenience init(configuration: Configuration = Configuration(), loader: (any DataLoading)? = nil,
                            logger: Logger = Logger(label: "darkroom.pipeline", factory: { _ in SwiftLogNoOpLogHandler() })) throws(DarkroomError) {
        try self.init(configuration: configuration, loader: loader, logger: logger, now: { Date() })
    }

    /// - Parameter now: what time it is for the memory of failures (a
    ///   test's own clock in tests).
    init(configuration: Configuration, loader: (any DataLoading)? = nil,
         logger: Logger = Logger(label: "darkroom.pipeline", factory: { _ in SwiftLogNoOpLogHandler() }),
         now: @escaping @Sendable () -> Date) throws(DarkroomError) {
        self.configuration = configuration
        self.logger = logger
        metrics = PipelineMetrics(factory: configuration.metricsFactory)
        let cpu = BlockingExecutor(threads: configuration.filtrationConcurrency)
        let core = PipelineCore(sourceByteLimit: max(1, configuration.maxSourceBytesInFlight), downloads: configuration.downloadConcurrency,
                                runs: configuration.filtrationConcurrency, agingInterval: configuration.agingInterval)
        self.core = core
        downloadQueue = PipelineQueue(core, .download, name: "download", maxConcurrent: configuration.downloadConcurrency,
                                      executor: cpu, metricsFactory: configuration.metricsFactory)
        filtrationQueue = PipelineQueue(core, .processing, name: "filtration", maxConcurrent: configuration.filtrationConcurrency,
                                        executor: cpu, metricsFactory: configuration.metricsFactory)
        memoryCache = MemoryCache(configuration: configuration.memoryCache)
        recentSources = configuration.recentSourceBytes > 0
            ? MemoryCache(configuration: .init(costLimit: configuration.recentSourceBytes, timeToLive: configuration.sourceFreshness))
            : nil
        if let disk = configuration.diskCache {
            do {
                diskCache = try DiskCache(configuration: disk)
            } catch {
                throw DarkroomError(.invalidOption, "cannot use \(disk.folder.path) as the cache folder", underlying: "\(error)")
            }
        } else {
            diskCache = nil
        }
        let metricsFactory = configuration.metricsFactory
        sharedCache = try configuration.sharedCache.map { configuration throws(DarkroomError) in
            try SharedResultCache(configuration: configuration, logger: logger, metricsFactory: metricsFactory)
        }
        let http: any DataLoading
        if let loader {
            http = loader
            ownedLoader = nil
        } else {
            let owned = DataLoader(configuration: configuration.loader)
            http = owned
            ownedLoader = owned
        }
        s3Sources = configuration.s3Sources.map { S3SourceLoader(configuration: $0, fallback: http) }
        let io = BlockingExecutor(threads: 2)
        self.io = io
        let remote = s3Sources ?? http
        self.loader = configuration.localRoot.map { root in
            LocalFileLoader(root: root, maxBytes: configuration.loader.maxBodyBytes, io: io, fallback: remote)
        } ?? remote
        failures = FailureMemory(duration: configuration.failureMemory, maxBytes: configuration.failureMemoryBytes, now: now)
        if let diskCache {
            // The folder's first scan, on the I/O threads rather than on
            // whichever thread first asks for an entry or the statistics.
            diskWrites.start { _ = try? await io.run { diskCache.loadIndex() } }
        }
        dataJobs = JobRegistry(core, \.dataJobs, stage: .download, gauges: downloadQueue.gauges) { state, job, result, now in
            state.finishSource(job, with: result, now: now)
        }
        processJobs = JobRegistry(core, \.processJobs, stage: .processing, gauges: filtrationQueue.gauges) { state, job, result, now in
            state.finishRun(job, with: result, now: now)
        }
        sourceBytes = SourceBytesGate(core)
    }

    /// Shuts down the loader the pipeline made, and the pipeline's threads.
    /// The pipeline cannot be used afterwards.
    public func shutdown() async {
        await diskWrites.wait()
        await sharedCache?.shutdown()
        await s3Sources?.shutdown()
        try? await ownedLoader?.shutdown()
        await filtrationQueue.executor.shutdown()
        await io.shutdown()
    }

    /// Returns when every disk write (and shared-cache write) started so far
    /// has ended: results are stored after they are answered, not before.
    public func waitForDiskWrites() async {
        await diskWrites.wait()
    }
    /// What the memory of recent failures holds, in bytes, and its bound.
    public var failureMemoryBytes: (held: Int, limit: Int) { (failures.bytes, failures.maxBytes) }

    func makeWaiterID() -> UInt64 { nextWaiter.add(1, ordering: .relaxed).oldValue }

    /// Before the job key of work that reads no cache.
    static let bypassPrefix = "bypass|"


    /// Fetches and processes `request`.
    ///
    /// Cancelling the calling task makes this caller leave; the work goes on
    /// for other callers, and stops when none is left.
    ///
    /// - Throws: ``DarkroomError``: the source could not be fetched, is not
    ///   an image, is over a limit, or the work was cancelled.
    public func image(for request: ImageRequest) async throws(DarkroomError) -> ImageResponse {
        try await image(for: request, waiter: makeWaiterID(), onEvent: nil, joined: nil)
    }

    /// The result for `request` if a cache has it (memory, then disk), without
    /// starting any work: an overloaded server still answers these.
    public func cachedImage(for request: ImageRequest) async -> ImageResponse? {
        var cacheOnly = request
        cacheOnly.admission = .cacheOnly
        return try? await image(for: cacheOnly)
    }

    /// The same, by a request's ``ImageRequest/processedKey``, for callers
    /// that made the key once and keep it (a server's parsed URLs).
    public func cachedImage(processedKey key: String) async -> ImageResponse? {
        if let hit = memoryHit(key) { return hit }
        return await diskHit(key)
    }

    /// The memory cache's answer alone: no disk read, no suspension, so a
    /// server can answer from it on the connection's own thread.
    public func memoryCachedImage(processedKey key: String) -> ImageResponse? {
        memoryHit(key)
    }

    /// The memory cache's answer for a processed key, counted.
    func memoryHit(_ key: String) -> ImageResponse? {
        guard var hit = memoryCache.value(for: key) else { return nil }
        metrics.cache(.memory, hit: true)
        hit.cacheType = .memory
        return hit
    }

    /// The disk cache's answer for a processed key (read now or, given
    /// `read`, already), counted, and kept in memory for next time.
    func diskHit(_ key: String, read: DiskCacheEntry?? = nil) async -> ImageResponse? {
        guard let stored = await readDisk(key, alreadyRead: read), var response = ImageResponse(diskEntry: stored, key: key) else { return nil }
        metrics.cache(.disk, hit: true)
        memoryCache.store(response, for: key, cost: response.image.memoryCost)
        response.cacheType = .disk
        return response
    }

    /// A handle for `request` that reports events, changes priority and cancels.
    public func imageTask(for request: ImageRequest) -> ImageTask {
        ImageTask.start(request, in: self)
    }

    /// The source's bytes, through the caches and the network, unprocessed.
    /// `bypassingCaches`: fetched anew, whatever the caches hold (the new
    /// bytes are kept).
    public func originalData(for source: ImageSource, priority: WorkPriority = .normal,
                             bypassingCaches: Bool = false) async throws(DarkroomError) -> SourceData {
        try await sourceData(for: source, priority: priority, onEvent: nil, bypassingCaches: bypassingCaches)
    }

    /// Reacts to memory pressure: empties the memory cache and cancels
    /// waiting work of low priority or below. The ``MemoryPressureMonitor``
    /// calls this; so may anyone.
    public func handleMemoryPressure() {
        memoryCache.removeAll()
        recentSources?.removeAll()
        let cancelled = downloadQueue.cancelWaiting(atOrBelow: .low) + filtrationQueue.cancelWaiting(atOrBelow: .low)
        metrics.memoryPressure(cancelled: cancelled)
    }

    func image(
        for request: ImageRequest,
        waiter id: UInt64,
        onEvent: (@Sendable (PipelineEvent) -> Void)?,
        joined: (@Sendable () -> Void)?
    ) async throws(DarkroomError) -> ImageResponse {
        let key = request.processedKey
        if !request.bypassesCache, let hit = memoryHit(key) { return hit }
        metrics.cache(.memory, hit: false)
        if request.admission == .cacheOnly {
            if let hit = await storedResult(key) { return hit }
            throw DarkroomError(.notCached, "no cache has this image")
        }
        let jobKey = Self.jobKey(key, bypassingCaches: request.bypassesCache)
        do {
            return try await processJobs.value(jobKey, waiter: id, priority: request.priority, refusable: request.admission == .unlessOverloaded,
                                               onEvent: onEvent, joined: { [metrics] coalesced in
                if coalesced { metrics.coalesced(stage: .process) }
                joined?()
            }) { context throws(DarkroomError) in
                try await self.process(request, key: key, context: context)
            }
        } catch {
            metrics.failure(error)
            if error.kind != .cancelled {
                logger.debug("image failed", metadata: ["source": "\(request.source.cacheKey)", "kind": "\(error.kind)", "reason": "\(error.reason)"])
            }
            throw error
        }
    }
}
