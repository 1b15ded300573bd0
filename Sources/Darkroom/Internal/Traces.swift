import Foundation
import Tracing

/// The pipeline's spans. Each stage of a request (a queue's wait, the
/// download, decode, processing, encode, each store) is a span under the
/// request's; with no tracer bootstrapped, as in the library's default,
/// every one is a no-op.
///
/// Work that runs on a queue's runner or a blocking thread is handed the
/// context it belongs to: those run outside the request's task, so its
/// task-local context does not reach them.
enum Traces {
    /// The calling task's context: the span it runs under, if any.
    static var current: InstrumentationContext { .current ?? .topLevel }

    /// Runs `body` in a span named `name` under `parent`, else under the
    /// task's current span; the new span is the current one inside. A
    /// failure is recorded on it.
    static func span<T, Failure: Error>(_ name: String, under parent: InstrumentationContext? = nil,
                                        _ body: (any Span) async throws(Failure) -> T) async throws(Failure) -> T {
        let span = startSpan(name, context: parent ?? current)
        defer { span.end() }
        do {
            return try await InstrumentationContext.$current.withValue(span.context) { try await body(span) }
        } catch {
            // Only `body` throws, and only what it declares.
            let failure = error as! Failure
            record(failure, on: span)
            throw failure
        }
    }

    /// Runs `body` in a span named `name` under `context`, on the calling
    /// thread (a blocking one); nothing is traced without a context.
    static func span<T, Failure: Error>(_ name: String, under context: InstrumentationContext?,
                                        _ body: () throws(Failure) -> T) throws(Failure) -> T {
        guard let context else { return try body() }
        let span = startSpan(name, context: context)
        defer { span.end() }
        do {
            return try body()
        } catch {
            record(error, on: span)
            throw error
        }
    }

    /// A failed stage: its kind and reason; a cancelled one is not an
    /// error. Any other failure (the thumbnail path's decoder declining a
    /// file, which libvips then reads) is noted without marking the span
    /// failed: the request goes on.
    static func record(_ error: some Error, on span: any Span) {
        guard let error = error as? DarkroomError else {
            span.attributes["darkroom.declined"] = "\(error)"
            return
        }
        span.attributes["darkroom.error.kind"] = error.kind.description
        guard error.kind != .cancelled else { return }
        span.setStatus(SpanStatus(code: .error, message: error.reason))
        span.recordError(error)
    }

    /// The query parameters whose values are credentials (presigned URLs'
    /// signatures and keys), named as OpenTelemetry's URL conventions list them.
    private static let secretParameters: Set<String> = [
        "awsaccesskeyid", "signature", "sig", "x-goog-signature", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
    ]

    /// `url` as a span may show it: no user or password, and the values of
    /// credential parameters replaced by `REDACTED`.
    static func redacted(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "" }
        if parts.user != nil || parts.password != nil { (parts.user, parts.password) = (nil, nil) }
        if let items = parts.percentEncodedQueryItems, items.contains(where: { secretParameters.contains($0.name.lowercased()) }) {
            parts.percentEncodedQueryItems = items.map { item in
                secretParameters.contains(item.name.lowercased()) ? URLQueryItem(name: item.name, value: "REDACTED") : item
            }
        }
        return parts.string ?? ""
    }
}

