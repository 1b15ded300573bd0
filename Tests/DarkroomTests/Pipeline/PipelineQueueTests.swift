@testable import Darkroom
import Foundation
import Metrics
import Testing
import TestSupport

/// Turns with real tasks: work a caller runs in its own task once the
/// pipeline's core gives it a slot.
@Suite struct PipelineQueueTests {
    static func currentTask() -> UnsafeCurrentTask? { withUnsafeCurrentTask { $0 } }

    private func queue(limit: Int = 1, threads: Int = 1) -> PipelineQueue {
        let core = PipelineCore(sourceByteLimit: 1000, downloads: 1, runs: limit, agingInterval: nil)
        return PipelineQueue(core, .processing, name: "test", maxConcurrent: limit, executor: BlockingExecutor(threads: threads),
                             metricsFactory: NOOPMetricsHandler.instance)
    }

    @Test func aTurnRunsInTheCallersTaskAndCountsAsRunning() async throws {
        let queue = queue()
        let caller = Self.currentTask()
        let value = try await queue.runInTurn(for: nil) { () throws(DarkroomError) in
            #expect(Self.currentTask() == caller, "no task of its own")
            #expect(queue.counts.running == 1)
            return 7
        }
        #expect(value == 7)
        #expect(queue.counts == WorkQueueCounts(finished: 1))
    }

    @Test func aCancelledWaitingTurnNeverRuns() async throws {
        let queue = queue()
        queue.suspend()
        let log = Log()
        let turn = Task { try await queue.runInTurn(for: nil) { () throws(DarkroomError) in log.append("ran") } }
        #expect(await eventually { queue.counts.waiting == 1 })
        turn.cancel()
        let error = await #expect(throws: DarkroomError.self) { try await turn.value }
        #expect(error?.kind == .cancelled)
        queue.resume()
        #expect(try await queue.runInTurn(for: nil) { () throws(DarkroomError) in 1 } == 1, "its slot was never taken")
        #expect(log.all.isEmpty)
        #expect(queue.counts.cancelled == 1)
    }

    @Test func turnsWaitInPriorityOrderForTheOneSlot() async throws {
        let queue = queue()
        let gate = Gate(), log = Log()
        let blocker = Task { try await queue.runInTurn(for: nil) { () throws(DarkroomError) in await gate.wait() } }
        #expect(await eventually { queue.counts.running == 1 })
        let low = Task { try await queue.runInTurn(for: nil, priority: .low) { () throws(DarkroomError) in log.append("low") } }
        #expect(await eventually { queue.counts.waiting == 1 })
        let high = Task { try await queue.runInTurn(for: nil, priority: .high) { () throws(DarkroomError) in log.append("high") } }
        #expect(await eventually { queue.counts.waiting == 2 })
        gate.open()
        try await blocker.value
        try await high.value
        try await low.value
        #expect(log.all == ["high", "low"])
    }

    /// Blocking work in a turn hears of its caller's cancel through its
    /// kill switch, which the caller's cancellation pulls.
    @Test func cancellingTheCallerReachesARunningBlockingTurn() async throws {
        let queue = queue()
        let started = Gate()
        let turn = Task {
            try await queue.runBlockingInTurn(for: nil) { killSwitch throws(DarkroomError) in
                started.open()
                while !killSwitch.isPulled { usleep(1000) }
                try killSwitch.check()
            }
        }
        await started.wait()
        turn.cancel()
        let error = await #expect(throws: DarkroomError.self) { try await turn.value }
        #expect(error?.kind == .cancelled)
        #expect(queue.counts.cancelled == 1 && queue.counts.running == 0)
    }
}
