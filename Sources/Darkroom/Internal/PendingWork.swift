import Synchronization
import DarkroomImaging

/// Work started in the background (disk writes after an answer has gone
/// out), kept so that shutdown, and anyone who must see it done, can wait.
final class PendingWork: Sendable {
    private struct State {
        var next = 0
        var tasks: [Int: Task<Void, Never>] = [:]
    }

    private let state = Locked(State())

    func start(_ work: @escaping @Sendable () async -> Void) {
        state.withLock { s in
            let id = s.next
            s.next += 1
            // The task removes itself; it cannot run before the lock is let go.
            s.tasks[id] = Task { [weak self] in
                await work()
                _ = self?.state.withLock { $0.tasks.removeValue(forKey: id) }
            }
        }
    }

    /// Returns when everything started so far, and anything it started, is done.
    func wait() async {
        while true {
            let tasks = state.withLock { Array($0.tasks.values) }
            if tasks.isEmpty { return }
            for task in tasks { await task.value }
        }
    }
}
