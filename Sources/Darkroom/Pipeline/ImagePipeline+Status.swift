extension ImagePipeline {
    /// What the pipeline is doing and has done, read at one moment: its
    /// queues' counts and its caches' figures. The queues and caches
    /// themselves stay inside the pipeline, so no client can add work past
    /// its coalescing, admission and byte window.
    public struct Status: Sendable, Hashable {
        /// Downloads: running, waiting, finished, failed, cancelled.
        public var downloads: WorkQueueCounts
        /// Processing runs, likewise.
        public var processing: WorkQueueCounts
        /// How many processing runs may run at once.
        public var processingThreads: Int
        public var memoryCache: CacheStatistics
        /// The memory cache's bound, in bytes.
        public var memoryCacheLimit: Int
        /// The disk cache's figures since the start (nil without one).
        public var diskCache: CacheStatistics?
        /// Source bytes held for processing runs (see
        /// ``Configuration/maxSourceBytesInFlight``).
        public var sourceBytesInFlight: Int
        /// Downloads waiting for room under that bound (not yet in the
        /// download queue).
        public var downloadsWaitingForRoom: Int
    }

    public var status: Status {
        Status(downloads: downloadQueue.counts, processing: filtrationQueue.counts, processingThreads: filtrationQueue.maxConcurrent,
               memoryCache: memoryCache.statistics, memoryCacheLimit: memoryCache.configuration.costLimit,
               diskCache: diskCache?.statisticsSoFar, sourceBytesInFlight: sourceBytes.held,
               downloadsWaitingForRoom: sourceBytes.waiters)
    }
}
