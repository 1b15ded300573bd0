import Foundation

/// Runs blocking work (a libvips run, a long decode) on a thread of its own,
/// so that it does not hold one of the cooperative pool's few threads, which
/// every async test of the process shares.
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}
