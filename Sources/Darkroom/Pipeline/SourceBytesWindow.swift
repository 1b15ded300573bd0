/// The rules of the source bytes window, as a plain value: how many bytes
/// of downloaded sources wait for (or are in) their processing runs, and
/// which downloads may start.
///
/// - A source's bytes count once, however many versions of it are being
///   made: each processing run holds the source by its key, and the bytes
///   leave the window when the last run holding it ends.
/// - A download starts at once while the window is under its limit and no
///   download waits before it; otherwise it waits, in the order asked,
///   holding nothing (not a download slot).
/// - Waiters are let in as room appears: when a source leaves the window,
///   and when a download let in ends (its bytes now held, or none if it
///   failed), as many as the room takes at the mean size of the sources
///   seen, and at least one while the window is under its limit. Letting
///   in every waiter at once would start them all on the same room.
///
/// Like ``JobTable`` it does nothing itself: its methods return the
/// waiters to resume, which ``SourceBytesGate`` does after unlocking.
struct SourceBytesWindow<Continuation> {
    let limit: Int
    private(set) var held = 0
    private var sources: [String: (bytes: Int, holders: Int)] = [:]
    private var waiting: [(id: UInt64, continuation: Continuation)] = []
    /// The mean size of the sources held so far: the room a waiter's
    /// download is expected to take.
    private var meanSource = 0.0
    private var sourcesSeen = 0.0

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    var waiters: Int { waiting.count }

    /// A download asks to start. True: start now; false: `continuation`
    /// is kept and resumed when the window lets it in.
    mutating func ask(_ id: UInt64, continuation: Continuation) -> Bool {
        if held < limit && waiting.isEmpty { return true }
        waiting.append((id, continuation))
        return false
    }

    /// A waiter gave up (its task was cancelled): its continuation, if it
    /// was still waiting.
    mutating func cancel(_ id: UInt64) -> Continuation? {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return nil }
        return waiting.remove(at: index).continuation
    }

    /// A processing run holds the source `key` of `bytes` until it calls
    /// ``release(_:)``.
    mutating func hold(_ key: String, bytes: Int) {
        if let source = sources[key] {
            sources[key] = (source.bytes, source.holders + 1)
            return
        }
        sources[key] = (bytes, 1)
        held += bytes
        sourcesSeen += 1
        meanSource += (Double(bytes) - meanSource) / sourcesSeen
    }

    /// A run holding `key` ended; the waiters its bytes let in.
    mutating func release(_ key: String) -> [Continuation] {
        guard let source = sources[key] else { return [] }
        guard source.holders <= 1 else {
            sources[key] = (source.bytes, source.holders - 1)
            return []
        }
        sources[key] = nil
        held -= source.bytes
        return letIn()
    }

    /// A download that was let in ended: the waiters let in after it.
    mutating func downloadEnded() -> [Continuation] {
        letIn()
    }

    private mutating func letIn() -> [Continuation] {
        guard held < limit, !waiting.isEmpty else { return [] }
        let room = Double(limit - held)
        let count = min(waiting.count, max(1, meanSource > 0 ? Int(room / meanSource) : 1))
        defer { waiting.removeFirst(count) }
        return waiting.prefix(count).map(\.continuation)
    }
}
