@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// Turns: work a caller runs in its own task once the queue gives it a
/// slot, under the same limit, priorities and cancellation as added work.
@Suite struct WorkQueueTurnTests {
    static func currentTask() -> UnsafeCurrentTask? { withUnsafeCurrentTask { $0 } }

    @Test func aTurnRunsInTheCallersTaskAndCountsAsRunning() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let caller = Self.currentTask()
        let value = try await queue.runInTurn { _ throws(DarkroomError) in
            #expect(Self.currentTask() == caller, "no task of its own")
            #expect(queue.counts.running == 1)
            return 7
        }
        #expect(value == 7)
        #expect(queue.counts == WorkQueueCounts(finished: 1))
    }

    @Test func turnsAndAddedWorkShareTheLimitAndWaitInPriorityOrder() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1, agingInterval: nil)
        let gate = Gate(), log = Log()
        let blocker = queue.add { _ in await gate.wait() }
        #expect(await eventually { blocker.state == .running })
        let low = Task { try await queue.runInTurn(priority: .low) { _ throws(DarkroomError) in log.append("low turn") } }
        #expect(await eventually { queue.counts.waiting == 1 })
        let added = queue.add(priority: .normal) { _ in log.append("normal item") }
        let high = Task { try await queue.runInTurn(priority: .high) { _ throws(DarkroomError) in log.append("high turn") } }
        #expect(await eventually { queue.counts.waiting == 3 })
        #expect(log.all.isEmpty, "the one slot is the blocker's")
        gate.open()
        try await high.value
        try await added.value
        try await low.value
        #expect(log.all == ["high turn", "normal item", "low turn"])
        #expect(queue.counts == WorkQueueCounts(finished: 4))
    }

    @Test func aCancelledWaitingTurnNeverRuns() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        queue.suspend()
        let log = Log()
        let turn = Task { try await queue.runInTurn { _ throws(DarkroomError) in log.append("ran") } }
        #expect(await eventually { queue.counts.waiting == 1 })
        turn.cancel()
        let error = await #expect(throws: DarkroomError.self) { try await turn.value }
        #expect(error?.kind == .cancelled)
        queue.resume()
        #expect(try await queue.runInTurn { _ throws(DarkroomError) in 1 } == 1, "its slot was never taken")
        #expect(log.all.isEmpty)
        #expect(queue.counts.cancelled == 1)
    }

    /// Blocking work in a turn hears of its caller's cancel through its
    /// cancellation handler, as the processing run's kill switch does.
    @Test func cancellingTheCallerReachesARunningBlockingTurn() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1, executor: BlockingExecutor(threads: 1))
        let started = Gate()
        let turn = Task {
            try await queue.runBlockingInTurn { context throws(DarkroomError) in
                let stopped = Gate()
                try context.withCancellationHandler({ stopped.open() }) { () throws(DarkroomError) in
                    started.open()
                    while !stopped.isOpen { usleep(1000) }
                }
                try context.checkCancellation()
            }
        }
        await started.wait()
        turn.cancel()
        let error = await #expect(throws: DarkroomError.self) { try await turn.value }
        #expect(error?.kind == .cancelled)
        #expect(queue.counts.cancelled == 1 && queue.counts.running == 0)
    }
}
