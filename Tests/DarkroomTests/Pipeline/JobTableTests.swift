@testable import Darkroom
import Synchronization
import Testing

/// The coalescing rules as plain values: strings stand in for continuations.
@Suite struct JobTableTests {
    typealias Table = JobTable<String, Int, String>

    private func startedJob(_ action: Table.JoinAction) -> UInt64? {
        if case .start(let job) = action { return job }
        return nil
    }

    private func joinedJob(_ action: Table.JoinAction) -> (UInt64, WorkPriority?)? {
        if case .joined(let job, let change) = action { return (job, change?.priority) }
        return nil
    }

    @Test func oneJobPerKeyForEveryoneWhoAsks() {
        var table = Table()
        let first = startedJob(table.join("a", waiter: 1, priority: .normal, onEvent: nil))
        let second = joinedJob(table.join("a", waiter: 2, priority: .normal, onEvent: nil))
        let other = startedJob(table.join("b", waiter: 3, priority: .normal, onEvent: nil))
        #expect(first != nil && other != nil && first != other)
        #expect(second?.0 == first)
        #expect(second?.1 == nil, "the same priority changes nothing")
        #expect(table.jobCount == 2)
    }

    @Test func aJobsPriorityIsItsPresentWaitersHighest() throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .low, onEvent: nil)))
        let told = Mutex<[WorkPriority]>([])
        #expect(table.follow(job) { p in told.withLock { $0.append(p) } } == .low)

        #expect(joinedJob(table.join("a", waiter: 2, priority: .high, onEvent: nil))?.1 == .high)
        table.setPriority(.veryHigh, for: 1)?.tell()
        #expect(told.withLock { $0 } == [.veryHigh])
        #expect(table.wait(1, continuation: "one") == nil)

        // The highest leaves: the job falls to the one left.
        guard case .left(let continuation, let change) = table.leave(1) else {
            Issue.record("waiter 1 should leave, not abandon")
            return
        }
        #expect(continuation == "one")
        #expect(change?.priority == .high)
        #expect(table.priority(of: job) == .high)
        #expect(table.setPriority(.high, for: 1) == nil, "a waiter that left no longer counts")
    }

    @Test func theLastWaiterLeavingAbandonsTheJobAndTheKeyStartsAfresh() async throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .normal, onEvent: nil)))
        _ = table.join("a", waiter: 2, priority: .normal, onEvent: nil)
        let task = Task<Void, Never> {}
        #expect(table.started(job, task: task) == nil)
        #expect(table.wait(1, continuation: "one") == nil)
        #expect(table.wait(2, continuation: "two") == nil)

        guard case .left("one", nil) = table.leave(1) else { Issue.record("waiter 1 should leave"); return }
        guard case .abandoned("two", let abandoned) = table.leave(2) else { Issue.record("waiter 2 should abandon"); return }
        #expect(abandoned == task, "the work's task is handed back to cancel")
        #expect(table.jobCount == 0)
        #expect(table.finish(job, with: .success(7)).isEmpty, "abandoned work publishes to nobody")
        #expect(startedJob(table.join("a", waiter: 3, priority: .normal, onEvent: nil)) != nil)
    }

    @Test func aWaiterThatLeavesBeforeWaitingFindsItselfCancelled() throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .normal, onEvent: nil)))
        guard case .abandoned(nil, nil) = table.leave(1) else { Issue.record("the only waiter abandons"); return }
        #expect(table.wait(1, continuation: "one") == .failure(.cancelled))
        #expect(table.waiters.isEmpty)
        // A task made after everyone left comes back to be cancelled.
        let late = Task<Void, Never> {}
        #expect(table.started(job, task: late) == late)
    }

    @Test func theResultReachesWaitersWhetherOrNotTheyAreWaitingYet() throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .normal, onEvent: nil)))
        _ = table.join("a", waiter: 2, priority: .normal, onEvent: nil)
        #expect(table.wait(1, continuation: "one") == nil)
        #expect(table.finish(job, with: .success(42)) == ["one"])
        #expect(table.wait(2, continuation: "two") == .success(42))
        #expect(table.waiters.isEmpty && table.jobCount == 0)
        #expect(table.leave(2).isNone, "leaving after the end changes nothing")
    }

    @Test func eventsGoToPresentWaitersOnly() throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .normal, onEvent: { _ in })))
        _ = table.join("a", waiter: 2, priority: .normal, onEvent: { _ in })
        _ = table.join("a", waiter: 3, priority: .normal, onEvent: nil)
        #expect(table.eventHandlers(of: job).count == 2)
        _ = table.leave(1)
        #expect(table.eventHandlers(of: job).count == 1)
    }

    @Test func aFailureReachesEveryWaiter() throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .normal, onEvent: nil)))
        _ = table.join("a", waiter: 2, priority: .normal, onEvent: nil)
        #expect(table.wait(1, continuation: "one") == nil)
        let failure = DarkroomError(.httpStatus, "404", statusCode: 404)
        #expect(table.finish(job, with: .failure(failure)) == ["one"])
        #expect(table.wait(2, continuation: "two") == .failure(failure))
    }
}

extension JobTable.LeaveAction {
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
