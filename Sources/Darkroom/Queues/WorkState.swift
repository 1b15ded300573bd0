/// Where a work item is in its life.
public enum WorkState: String, Sendable, Hashable, Codable {
    /// Queued: waiting for its dependencies or for a free slot.
    case waiting
    case running
    /// Ran to completion with a result.
    case finished
    /// Ran, or could not run because a dependency failed, and ended in an error.
    case failed
    /// Cancelled before or while it ran; it published nothing.
    case cancelled

    /// Whether the item has ended and will not change again.
    public var isTerminal: Bool {
        self == .finished || self == .failed || self == .cancelled
    }

    /// The state an item ends in with `result`.
    init<Value>(ending result: Result<Value, DarkroomError>) {
        switch result {
        case .success: self = .finished
        case .failure(let error) where error.kind == .cancelled: self = .cancelled
        case .failure: self = .failed
        }
    }
}

/// How many items a queue holds in each state, for metrics and viewers.
public struct WorkQueueCounts: Sendable, Hashable, Codable {
    public var waiting = 0
    public var running = 0
    public var finished = 0
    public var failed = 0
    public var cancelled = 0
}
