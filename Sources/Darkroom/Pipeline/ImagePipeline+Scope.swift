public import Logging

/// Runs `body` with a pipeline made from `configuration`, and shuts the
/// pipeline down when `body` ends, however it ends (as
/// `HTTPClient.withHTTPClient` does for a client): its disk writes are on
/// disk and its threads stopped by the time this returns.
///
/// ```swift
/// let response = try await withImagePipeline(configuration: configuration) { pipeline in
///     try await pipeline.image(for: request)
/// }
/// ```
///
/// - Throws: ``DarkroomError`` when the pipeline cannot be made (the cache
///   folder), or whatever `body` throws.
public func withImagePipeline<Result, Failure: Error>(
    configuration: ImagePipeline.Configuration = ImagePipeline.Configuration(),
    loader: (any DataLoading)? = nil,
    logger: Logger = Logger(label: "darkroom.pipeline", factory: { _ in SwiftLogNoOpLogHandler() }),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ImagePipeline) async throws(Failure) -> Result
) async throws -> Result {
    let pipeline = try ImagePipeline(configuration: configuration, loader: loader, logger: logger)
    do {
        let result = try await body(pipeline)
        await pipeline.shutdown()
        return result
    } catch {
        await pipeline.shutdown()
        throw error
    }
}
