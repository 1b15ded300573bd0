/// The seeds' photo table without a screen: it holds a list's rows and
/// drives the pipeline for them.
///
/// - Only visible rows start work, at high priority; rows just beyond the
///   visible range prefetch at low priority.
/// - While the viewer scrolls, new work is held back (the pipeline goes on
///   serving everyone else). When scrolling ends, work for rows that left
///   the screen is cancelled and work for visible rows starts.
/// - Work is tracked per row, and a row never starts the same work twice.
/// - ``events`` delivers each row's changes in order, from this actor: the
///   original as soon as it is downloaded, then the filtered image. A late
///   result never lands on a row that was reset or now shows another photo.
///
/// ```swift
/// let controller = PhotoListController(list: list, pipeline: pipeline)
/// await controller.setVisibleRows(0..<8)
/// for await event in controller.events { ... }
/// ```
public actor PhotoListController {
    public nonisolated let pipeline: ImagePipeline
    public nonisolated let options: ProcessingOptions
    public nonisolated let prefetchDistance: Int
    public nonisolated let events: AsyncStream<PhotoRowEvent>
    private let continuation: AsyncStream<PhotoRowEvent>.Continuation

    public private(set) var rows: [PhotoRow]
    private var visible: Set<Int> = []
    private var scrolling = false
    private var pending: [Int: Pending] = [:]
    /// Bumped whenever a row's work is abandoned; results of older
    /// generations are dropped.
    private var generations: [Int: Int] = [:]

    private struct Pending {
        var task: ImageTask
        var generation: Int
        var priority: WorkPriority
    }

    /// - Parameters:
    ///   - options: how to process every row (the seed: sepia 0.8).
    ///   - prefetchDistance: how many rows beyond each end of the visible
    ///     range to prefetch at low priority.
    public init(list: PhotoList, pipeline: ImagePipeline,
                options: ProcessingOptions = ProcessingOptions(operations: [.sepia(intensity: ImageOperation.defaultSepiaIntensity)]),
                prefetchDistance: Int = 0) {
        self.pipeline = pipeline
        self.options = options
        self.prefetchDistance = prefetchDistance
        rows = list.entries.map { entry in
            PhotoRow(entry: entry, state: entry.problem.map { .failed($0) } ?? .new)
        }
        (events, continuation) = AsyncStream.makeStream(of: PhotoRowEvent.self)
    }

    /// The rows whose work is under way.
    public var pendingRows: Set<Int> { Set(pending.keys) }

    /// The rows on screen now. Unless the viewer is scrolling, work follows
    /// at once.
    public func setVisibleRows<Rows: Sequence<Int>>(_ rows: Rows) {
        visible = Set(rows.filter { self.rows.indices.contains($0) })
        if !scrolling { update() }
    }

    public func beginScrolling() {
        scrolling = true
    }

    public func endScrolling() {
        scrolling = false
        update()
    }

    public var isScrolling: Bool { scrolling }

    /// Forgets a row's work and result: it goes back to new, and whatever
    /// was under way for it will not land on it.
    public func reset(row: Int) {
        guard rows.indices.contains(row) else { return }
        abandon(row)
        rows[row].state = rows[row].entry.problem.map { .failed($0) } ?? .new
        emit(PhotoRowEvent(row: row, state: rows[row].state))
        if !scrolling { update() }
    }

    /// Makes a row show another photo (as a reused table cell does).
    public func replace(row: Int, with entry: PhotoList.Entry) {
        guard rows.indices.contains(row) else { return }
        var entry = entry
        entry.id = row
        rows[row].entry = entry
        reset(row: row)
    }

    /// Cancels all work and ends ``events``.
    public func close() {
        for row in Array(pending.keys) { abandon(row) }
        continuation.finish()
    }

    // MARK: - Work

    /// Starts, re-prioritizes or cancels work so that it matches what is
    /// visible (and near it).
    private func update() {
        var wanted: [Int: WorkPriority] = [:]
        if let first = visible.min(), let last = visible.max(), prefetchDistance > 0 {
            for row in max(0, first - prefetchDistance)..<first { wanted[row] = .low }
            for row in (last + 1)..<min(rows.count, last + 1 + prefetchDistance) { wanted[row] = .low }
        }
        for row in visible { wanted[row] = .high }

        for row in Array(pending.keys) where wanted[row] == nil {
            abandon(row)
        }
        for (row, priority) in wanted.sorted(by: { $0.key < $1.key }) {
            switch rows[row].state {
            case .filtered, .failed: continue           // done: never the same work twice
            case .new, .downloaded: break
            }
            if var work = pending[row] {
                if work.priority != priority {
                    work.task.setPriority(priority)
                    work.priority = priority
                    pending[row] = work
                }
            } else {
                start(row, priority: priority)
            }
        }
    }

    private func start(_ row: Int, priority: WorkPriority) {
        guard let url = rows[row].entry.url else { return }
        let generation = generations[row, default: 0]
        let task = pipeline.imageTask(for: ImageRequest(source: .url(url), options: options, priority: priority))
        pending[row] = Pending(task: task, generation: generation, priority: priority)
        Task {
            for await event in task.events {
                self.apply(event, row: row, generation: generation)
            }
        }
    }

    private func abandon(_ row: Int) {
        generations[row, default: 0] += 1
        pending.removeValue(forKey: row)?.task.cancel()
    }

    private func apply(_ event: ImageTaskEvent, row: Int, generation: Int) {
        // A result for work that was abandoned never lands.
        guard generations[row, default: 0] == generation else { return }
        switch event {
        case .progress:
            return
        case .original(let source):
            guard rows[row].state == .new else { return }
            rows[row].state = .downloaded
            emit(PhotoRowEvent(row: row, state: .downloaded, original: source))
        case .finished(let response):
            pending[row] = nil
            rows[row].state = .filtered
            emit(PhotoRowEvent(row: row, state: .filtered, image: response))
        case .failed(let error):
            pending[row] = nil
            guard error.kind != .cancelled else { return }
            rows[row].state = .failed(error.reason)
            emit(PhotoRowEvent(row: row, state: rows[row].state))
        }
    }

    private func emit(_ event: PhotoRowEvent) {
        continuation.yield(event)
    }
}
