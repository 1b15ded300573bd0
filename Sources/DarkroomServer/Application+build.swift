import Darkroom
import Foundation
#if canImport(Glibc)
import Glibc
#endif
public import Hummingbird
public import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Builds the Darkroom server: image URLs, the gallery, health and metrics.
///
/// `darkroom serve` runs what this returns, and so do the tests.
///
/// ```swift
/// let app = try await buildApplication(ServerConfiguration())
/// try await app.runService()
/// ```
///
/// - Parameter onRunning: told the port the server listens on, once it
///   does (the one chosen when ``ServerConfiguration/port`` is 0).
/// - Throws: ``ServerSetupError`` when the list, the cache folder or the
///   port cannot be used.
/// - Parameter onMetricsRunning: told the port of the metrics address,
///   once it listens, when ``ServerConfiguration/metricsAddress`` is set.
public func buildApplication(_ configuration: ServerConfiguration, logger: Logger = Logger(label: "darkroom"),
                             onRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in },
                             onMetricsRunning: @escaping @Sendable (_ port: Int) async -> Void = { _ in }) async throws -> some ApplicationProtocol {
    let metrics = ServerMetrics()
    do {
        try ImageURLOptions.check(presets: configuration.presets)
    } catch {
        throw ServerSetupError(error.message)
    }

    let pipelineConfiguration = pipelineConfiguration(for: configuration, metrics: metrics)
    let pipeline: ImagePipeline
    do {
        pipeline = try ImagePipeline(configuration: pipelineConfiguration, logger: logger)
    } catch {
        throw ServerSetupError(error.description)
    }
    if let shared = pipeline.sharedCache {
        try await checkSharedCache(shared, logger: logger)
    }

    let list: PhotoList
    do {
        if let location = configuration.list {
            list = try await PhotoList.load(from: location)
        } else {
            list = try Gallery.sampleList()
        }
    } catch let error as DarkroomError {
        throw ServerSetupError(error.description)
    }
    let gallery = Gallery(list: list, pipeline: pipeline)
    let books = BookJobs(folder: (pipeline.configuration.diskCache?.folder ?? FileManager.default.temporaryDirectory)
                            .appendingPathComponent("books-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"),
                         lifetime: configuration.bookLifetime)
    let connections = ConnectionWatch()
    let connectionLimits = ConnectionLimits(configuration.connections)
    let images = ImageRoutes(pipeline: pipeline, configuration: configuration, connections: connections, logger: logger)
    let recorder = RequestRecorder(factory: metrics.factory, accessLog: configuration.accessLog ? logger : nil)
    let router = buildRouter(configuration, pipeline: pipeline, gallery: gallery, books: books, logger: logger, metrics: metrics,
                             connections: connections, images: images, connectionLimits: connectionLimits, recorder: recorder)
    // Memory-cache hits are answered on the event loop, unless every request
    // is to be traced (a span lives in the router's task).
    let routerOnly = configuration.tracing

    var services: [any Service] = [PipelineShutdownService(pipeline: pipeline), ViewerSweeper(viewers: gallery.viewers, books: books),
                                   MemoryReturnService(pipeline: pipeline)]
    if configuration.watchMemoryPressure {
        services.append(MemoryPressureService(monitor: MemoryPressureMonitor(pipeline: pipeline, logger: logger)))
    }
    if let address = configuration.metricsAddress {
        // Its own small application: /metrics only, on its own address.
        let metricsRouter = Router(context: ServerContext.self)
        OperationsRoutes(processor: ImageProcessor(), pipeline: pipeline, connections: connections, metrics: metrics,
                         parsedURLs: images.parsedURLs, connectionLimits: connectionLimits, recorder: recorder).addMetrics(to: metricsRouter)
        services.append(Application(
            router: metricsRouter,
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: configuration.serverName),
            onServerRunning: { channel in
                logger.notice("darkroom serves /metrics", metadata: ["address": "\(channel.localAddress?.description ?? "?")"])
                await onMetricsRunning(channel.localAddress?.port ?? address.port)
            },
            logger: logger))
    }
    return Application(
        router: router,
        server: .darkroom(images: routerOnly ? nil : images, fields: images.fields, recorder: recorder, configuration: .init(additionalChannelHandlers: [DisconnectHandler()]),
                          timeouts: configuration.connectionTimeouts, limits: connectionLimits),
        configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: configuration.serverName),
        services: services,
        onServerRunning: { channel in
            logger.notice("darkroom is serving", metadata: ["address": "\(channel.localAddress?.description ?? "?")"])
            await onRunning(channel.localAddress?.port ?? configuration.port)
        },
        logger: logger
    )
}

/// Refuses to start on a configuration the store refuses (wrong keys, no
/// such bucket); starts degraded when the store cannot be reached, since
/// the origin can still answer every request.
private func checkSharedCache(_ shared: SharedResultCache, logger: Logger) async throws {
    do {
        try await shared.check()
        logger.notice("the shared result cache is ready", metadata: ["location": "s3://\(shared.configuration.client.bucket)/\(shared.configuration.prefix)"])
    } catch where error.isTransient {
        logger.warning("the shared result cache cannot be reached; serving without it until it can", metadata: ["error": "\(error)"])
    } catch {
        throw ServerSetupError("the shared result cache: \(error)")
    }
}

/// The routes and middleware, for ``buildApplication(_:logger:)`` and for
/// router-level tests.
func buildRouter(_ configuration: ServerConfiguration, pipeline: ImagePipeline, gallery: Gallery, books: BookJobs, logger: Logger,
                 metrics: ServerMetrics, connections: ConnectionWatch = ConnectionWatch(), images: ImageRoutes? = nil,
                 connectionLimits: ConnectionLimits? = nil, recorder: RequestRecorder? = nil) -> Router<ServerContext> {
    let router = Router(context: ServerContext.self)
    let images = images ?? ImageRoutes(pipeline: pipeline, configuration: configuration, connections: connections)
    // Outermost, so that errors reach the metrics middleware as errors and
    // still leave with the request's id.
    router.add(middleware: FrontFieldsMiddleware(fields: images.fields))
    if configuration.tracing {
        router.add(middleware: RequestTracingMiddleware())
    }
    let recorder = recorder ?? RequestRecorder(factory: metrics.factory, accessLog: configuration.accessLog ? logger : nil)
    router.add(middleware: RequestMetricsMiddleware(recorder: recorder))
    images.add(to: router)
    router.add(middleware: FileMiddleware(Gallery.staticFolder, urlBasePath: "/gallery", cacheControl: .init([(MediaType(type: .any), [.noCache])]), logger: logger))
    router.add(middleware: FileMiddleware(Gallery.samplesFolder, urlBasePath: "/samples", logger: logger))
    GalleryRoutes(gallery: gallery).add(to: router)
    BookRoutes(gallery: gallery, books: books, signing: !configuration.signatures.isEmpty, limits: configuration.limits).add(to: router)
    let operations = OperationsRoutes(processor: ImageProcessor(), pipeline: pipeline, connections: connections, metrics: metrics,
                                      parsedURLs: images.parsedURLs, connectionLimits: connectionLimits, recorder: recorder)
    operations.addHealth(to: router)
    if configuration.metricsAddress == nil { operations.addMetrics(to: router) }
    InfoRoutes(pipeline: pipeline, configuration: configuration, processor: ImageProcessor(), connections: connections).add(to: router)
    return router
}

/// The pipeline a server with `configuration` runs, its figures in `metrics`.
func pipelineConfiguration(for configuration: ServerConfiguration, metrics: ServerMetrics) -> ImagePipeline.Configuration {
    var pipelineConfiguration = ImagePipeline.Configuration()
    pipelineConfiguration.metricsFactory = metrics.factory
    pipelineConfiguration.filtrationConcurrency = configuration.filtrationConcurrency
    pipelineConfiguration.downloadConcurrency = configuration.downloadConcurrency
    pipelineConfiguration.maxWaitingProcessing = configuration.maxWaitingFiltrations
    pipelineConfiguration.sourceMinUses = configuration.sourceMinUses
    // Failures are remembered in memory only: a stranger's refused sources
    // must not fill the disk cache and evict results.
    pipelineConfiguration.keepsFailuresOnDisk = false
    pipelineConfiguration.loader.totalTimeout = configuration.downloadTimeout
    pipelineConfiguration.loader.userAgent = configuration.userAgent
    pipelineConfiguration.loader.extraHeaders = configuration.customRequestHeaders
    pipelineConfiguration.loader.passedResponseHeaders = configuration.responseHeadersPassthrough
    pipelineConfiguration.loader.maxRedirects = configuration.maxRedirects
    pipelineConfiguration.loader.maxBodyBytes = configuration.limits.maxSourceBytes
    if let bytes = configuration.memoryCacheBytes {
        pipelineConfiguration.memoryCache.costLimit = bytes
    }
    // Sources downloaded and waiting for a processing thread are bounded by
    // the memory the operator gave to images: processing, not the loopback
    // or the network, is what requests wait for, so a smaller window costs
    // no throughput.
    pipelineConfiguration.maxSourceBytesInFlight = max(16 << 20, pipelineConfiguration.memoryCache.costLimit)
    // Sources are kept on disk from their second use; until then, the
    // latest stay in memory, a quarter of the image memory's size, so a
    // second version soon after the first needs no second download.
    if configuration.sourceMinUses > 1 {
        pipelineConfiguration.recentSourceBytes = pipelineConfiguration.memoryCache.costLimit / 4
    }
    pipelineConfiguration.loader.trustedCertificateFiles = configuration.sourceCertificateAuthorities
    pipelineConfiguration.loader.policy = SourcePolicy(
        allowedPrefixes: configuration.allowedSources,
        allowPrivateNetworks: configuration.allowPrivateNetworks,
        trustedOrigins: configuration.trustedOrigins)
    // The bundled samples are read in process, as `local:///photos/...`.
    pipelineConfiguration.localRoot = configuration.localRoot ?? (configuration.list == nil ? URL(fileURLWithPath: Gallery.samplesFolder) : nil)
    if let folder = configuration.cacheFolder {
        pipelineConfiguration.diskCache = DiskCache.Configuration(folder: folder)
    }
    pipelineConfiguration.sharedCache = configuration.sharedCache
    if var s3 = configuration.s3Sources {
        s3.maxObjectBytes = configuration.limits.maxSourceBytes
        s3.timeout = configuration.downloadTimeout
        pipelineConfiguration.s3Sources = s3
    }
    return pipelineConfiguration
}
