import Darkroom

/// What an answer may say about a source that came encrypted (`/enc/`):
/// nothing. Every failure to have it (a token that does not decrypt, a
/// source refused, missing at the origin, unreachable, not an image) is
/// one answer, a 404 with one sentence, so that neither the text nor the
/// status tells a client anything of the URL inside; the server's own
/// refusals (overload, the time limit, the options) keep their status and
/// say nothing of the source either.
enum EncryptedSource {
    /// The one sentence of every failure to have an encrypted source.
    static let reason = "the encrypted source could not be had"

    static let unavailable = DarkroomError(.forbiddenSource, reason)

    /// `error` as a request with an encrypted source may answer it.
    static func hiding(_ error: DarkroomError) -> DarkroomError {
        switch error.kind {
        case .overloaded, .processingTimedOut, .cancelled, .notCached:
            // Reasons of the server's own, without what lies underneath.
            DarkroomError(error.kind, error.reason)
        case .invalidOption where !error.reason.contains("://"):
            DarkroomError(error.kind, error.reason)
        default:
            unavailable
        }
    }
}
