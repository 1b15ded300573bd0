/// The rules of the source bytes window, as a plain value: how many bytes
/// of downloaded sources wait for (or are in) their processing runs, or
/// are on their way, and which downloads may start.
///
/// - A source's bytes count once, however many versions of it are being
///   made: each processing run holds the source by its key, and the bytes
///   leave the window when the last run holding it ends.
/// - A download let in counts at the mean size of the sources seen until
///   it ends (its run then holds its real size), so a burst of downloads
///   at an empty window takes the room they are expected to fill, not
///   every download slot. Before any source has been seen, as many go as
///   the download queue runs at once (each counts at the window's share
///   of one slot), and the first to arrive tells the size.
/// - A download starts at once when nobody waits before it and the bytes
///   held and expected leave room for it, or when nothing at all is held
///   or expected (a source larger than the limit still runs, alone);
///   otherwise it waits, in the order asked, holding nothing (not a
///   download slot).
/// - Waiters are let in by the same rule whenever room appears: a source
///   leaves the window, or a download ends.
///
/// Like ``JobTable`` it does nothing itself: its methods return the
/// waiters to resume, which ``SourceBytesGate`` does after unlocking.
struct SourceBytesWindow<Continuation> {
    let limit: Int
    private(set) var held = 0
    private var sources: [String: (bytes: Int, holders: Int)] = [:]
    private var waiting: [(id: UInt64, continuation: Continuation)] = []
    /// Downloads let in that have not ended.
    private var downloading: Set<UInt64> = []
    /// The mean size of the sources held so far: the room a download is
    /// expected to take.
    private var meanSource = 0.0
    private var sourcesSeen = 0.0

    /// The share of the window a download of unknown size counts for.
    private let unknownDownload: Double

    init(limit: Int, downloadsBeforeSizeKnown: Int = 1) {
        self.limit = max(1, limit)
        unknownDownload = Double(self.limit) / Double(max(1, downloadsBeforeSizeKnown))
    }

    var waiters: Int { waiting.count }
    var downloads: Int { downloading.count }

    /// The bytes held and those the downloads let in are expected to bring.
    var expected: Int { held + Int((Double(downloading.count) * expectedDownload).rounded(.up)) }

    private var expectedDownload: Double { sourcesSeen > 0 ? meanSource : unknownDownload }

    /// Whether one more download fits beside those held and on their way.
    private var hasRoom: Bool {
        if held == 0 && downloading.isEmpty { return true }
        return Double(held) + Double(downloading.count + 1) * expectedDownload <= Double(limit)
    }

    /// A download asks to start. True: start now; false: `continuation`
    /// is kept and resumed when the window lets it in. Either way the
    /// caller calls ``downloadEnded(_:)`` with `id` when it is done.
    mutating func ask(_ id: UInt64, continuation: Continuation) -> Bool {
        if waiting.isEmpty && hasRoom {
            downloading.insert(id)
            return true
        }
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

    /// The download `id` ended, or its waiter gave up: the waiters let in
    /// after it. Nothing changes for an id not let in.
    mutating func downloadEnded(_ id: UInt64) -> [Continuation] {
        guard downloading.remove(id) != nil else { return [] }
        return letIn()
    }

    private mutating func letIn() -> [Continuation] {
        var resumed: [Continuation] = []
        while let first = waiting.first, hasRoom {
            waiting.removeFirst()
            downloading.insert(first.id)
            resumed.append(first.continuation)
        }
        return resumed
    }
}
