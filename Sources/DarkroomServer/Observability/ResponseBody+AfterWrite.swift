import Hummingbird

extension ResponseBody {
    /// The same body, with `done` run once it has been written, whether the
    /// write succeeds or the client has gone: where a request's figures and
    /// its span end.
    func afterWrite(_ done: @escaping @Sendable () -> Void) -> ResponseBody {
        ResponseBody(contentLength: contentLength) { writer in
            defer { done() }
            try await self.write(writer)
        }
    }
}
