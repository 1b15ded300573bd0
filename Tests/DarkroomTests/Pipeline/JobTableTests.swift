@testable import Darkroom
import Synchronization
import Testing
import DarkroomImaging

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
        #expect(table.link(job, turn: 7) == .low, "its turn waits at the job's priority")
        #expect(table.link(job, upstream: 9) == .low)

        #expect(joinedJob(table.join("a", waiter: 2, priority: .high, onEvent: nil))?.1 == .high)
        #expect(table.setPriority(.veryHigh, for: 1) == JobPriorityChange(priority: .veryHigh, turn: 7, upstream: 9),
                "the change names the work that follows it")
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

    /// A request that must be served and joins a job started by one that
    /// may be refused is not refused with it: admission is per waiter.
    @Test func admissionIsEachWaitersOwn() throws {
        var table = Table()
        let overloaded = DarkroomError(.overloaded, "busy")
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .high, refusable: true, onEvent: nil)))
        _ = table.join("a", waiter: 2, priority: .low, onEvent: nil)
        _ = table.join("a", waiter: 3, priority: .normal, refusable: true, onEvent: nil)
        #expect(table.wait(1, continuation: "one") == nil)

        let refusal = table.refuse(job, with: overloaded)
        #expect(refusal.refused == ["one"], "a refusable waiter that waits is resumed with the refusal")
        #expect(refusal.goesOn, "the job goes on for the waiter that must be served")
        #expect(refusal.change?.priority == .low, "the job's priority is the one left's")
        #expect(table.wait(3, continuation: "three") == .failure(overloaded), "one that had not begun to wait finds the refusal")

        // Past that point a refusable newcomer joins the work under way.
        _ = joinedJob(table.join("a", waiter: 4, priority: .normal, refusable: true, onEvent: nil))
        #expect(table.wait(2, continuation: "two") == nil)
        #expect(table.wait(4, continuation: "four") == nil)
        #expect(Set(table.finish(job, with: .success(7))) == ["two", "four"])
    }

    @Test func aJobWhoseWaitersAreAllRefusedIsOverAndTheKeyStartsAfresh() throws {
        var table = Table()
        let job = try #require(startedJob(table.join("a", waiter: 1, priority: .normal, refusable: true, onEvent: nil)))
        _ = table.join("a", waiter: 2, priority: .normal, refusable: true, onEvent: nil)
        _ = table.leave(2)
        let refusal = table.refuse(job, with: DarkroomError(.overloaded, "busy"))
        #expect(!refusal.goesOn && refusal.refused.isEmpty)
        #expect(table.jobCount == 0)
        #expect(table.finish(job, with: .failure(DarkroomError(.overloaded, "busy"))).isEmpty, "its work's end reaches no one")
        #expect(startedJob(table.join("a", waiter: 3, priority: .normal, onEvent: nil)) != nil)
    }
}

extension JobTable.LeaveAction {
    var isNone: Bool {
        if case .none = self { return true }
        return false
    }
}
