/// An item's wait for its dependencies, as a plain value: it may be
/// scheduled once every one has finished, and fails without running as
/// soon as one fails or is cancelled (Foundation's OperationQueue would
/// run it anyway; here, work that depends on a failed download does not
/// run). It settles once: what ends after that changes nothing.
struct DependencyWait: Equatable {
    enum Outcome: Equatable {
        /// Nothing to do: others are still running, or it has settled.
        case waits
        /// Every dependency finished: schedule the item.
        case ready
        /// A dependency ended so: fail the item.
        case failed(WorkState)
    }

    private var remaining: Int
    private(set) var settled = false

    init(count: Int) {
        remaining = count
    }

    /// A dependency ended as `state`.
    mutating func ended(_ state: WorkState) -> Outcome {
        guard !settled else { return .waits }
        if state != .finished {
            settled = true
            return .failed(state)
        }
        remaining -= 1
        guard remaining == 0 else { return .waits }
        settled = true
        return .ready
    }
}
