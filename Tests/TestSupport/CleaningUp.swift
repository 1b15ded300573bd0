/// Runs `body`, then `cleanup`, awaited, whether `body` returned or threw:
/// a test's servers, clients and pipelines are stopped before the test
/// ends, so the next test never meets them (a `defer { Task { ... } }`
/// left the stop to an unawaited task).
public func cleaningUp<T>(_ cleanup: () async -> Void, _ body: () async throws -> T) async rethrows -> T {
    let value: T
    do {
        value = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return value
}
