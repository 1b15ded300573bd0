public import Foundation
public import Metrics

extension ImagePipeline {
    public struct Configuration: Sendable {
        /// Downloads at once (the seed's download queue).
        public var downloadConcurrency = 6
        /// Processing runs at once (the seed's filtration queue); one per core.
        public var filtrationConcurrency = ProcessInfo.processInfo.activeProcessorCount
        /// How long waiting work waits before it rises one priority level.
        public var agingInterval: Duration? = .seconds(10)
        /// The memory cache of processed images. Its default size is a share
        /// of the machine: an eighth of the cgroup's memory limit where there
        /// is one, at most 256 MiB and at least 16 MiB; 256 MiB otherwise.
        public var memoryCache = MemoryCache<String, ImageResponse>.Configuration(costLimit: Configuration.defaultMemoryCacheBytes)
        /// The most source bytes held downloaded but not yet processed; new
        /// downloads wait while this many are held.
        public var maxSourceBytesInFlight = 256 << 20
        /// The disk cache's folder and limit; nil: no disk cache.
        public var diskCache: DiskCache.Configuration? = DiskCache.Configuration()
        /// The result cache shared by replicas, after memory and disk; nil:
        /// none.
        public var sharedCache: SharedResultCache.Configuration?
        public var loader = DataLoader.Configuration()
        /// `s3://BUCKET/KEY` sources, from the buckets allowed; nil: S3
        /// URLs are refused like any URL that is not http(s).
        public var s3Sources: S3SourceLoader.Configuration?
        /// For requests admitted ``ImageRequest/Admission/unlessOverloaded``:
        /// the most processing runs that may wait for a thread before new
        /// work is refused as ``DarkroomError/Kind/overloaded``.
        public var maxWaitingProcessing = 64
        /// The folder `local:///PATH` sources are read from; nil: local
        /// URLs are refused like any URL that is not http(s).
        public var localRoot: URL?
        /// How long a failed URL fails at once, without a new request; after
        /// that it is tried again.
        public var failureMemory: Duration = .seconds(30)
        /// The most the memory of failures holds, in bytes (4 MiB: about
        /// 10,000 failures with their reasons); the oldest go first.
        public var failureMemoryBytes = 4 << 20
        /// Whether failures are kept on disk too, for the next process (a
        /// command run again) to skip them until they expire. Off for a
        /// server: strangers' failures must never take the disk cache's
        /// room from results.
        public var keepsFailuresOnDisk = true
        /// How many uses of a source (data jobs not answered from disk)
        /// before it is kept on disk, as nginx's `proxy_cache_min_uses`: 1
        /// keeps every source; 2 keeps a source once it is asked in a
        /// second version, so that a source asked in one version only, as
        /// most are behind a result cache, costs no disk write. Processed
        /// results are kept on disk whatever this says.
        public var sourceMinUses = 1
        /// Bytes of recently downloaded sources kept in memory, so that a
        /// source asked in a second version soon after the first needs no
        /// second download (and, with ``sourceMinUses`` 2, is kept on disk
        /// from there); 0: none.
        public var recentSourceBytes = 0
        /// How long a cached source is used as it is; after that it is
        /// revalidated with the origin (If-None-Match / If-Modified-Since).
        public var sourceFreshness: Duration = .seconds(24 * 3600)
        /// Where the pipeline's counters, timers and queue gauges go. By
        /// default the process's (`MetricsSystem`); a server gives each
        /// of its applications a factory of its own, so that two pipelines
        /// in one process never write each other's figures.
        public var metricsFactory: any MetricsFactory = MetricsSystem.factory

        public init() {}

        /// The default size of the memory cache on this machine, read from
        /// the cgroup once.
        public static let defaultMemoryCacheBytes: Int = {
            let ceiling = 256 << 20
            guard let limit = LinuxMemoryPressureSource().read().limit, limit > 0 else { return ceiling }
            return min(ceiling, max(16 << 20, limit / 8))
        }()
    }
}
