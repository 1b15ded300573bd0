@testable import Darkroom
import Testing
import TestSupport

/// The pipeline's slots as a plain value: strings stand in for the
/// continuations of callers waiting for a turn, and the test moves time.
@Suite struct TurnQueueTests {
    typealias Turns = TurnQueue<String>
    let t0 = ContinuousClock.now

    @Test func turnsRunUpToTheLimitAndASlotPassesToTheNextWaiting() {
        var turns = Turns(limit: 2, agingInterval: nil)
        #expect(turns.ask(1, priority: .normal, continuation: "one", now: t0) == .runs)
        #expect(turns.ask(2, priority: .normal, continuation: "two", now: t0) == .runs)
        #expect(turns.ask(3, priority: .normal, continuation: "three", now: t0) == .waits)
        #expect(turns.counts == WorkQueueCounts(waiting: 1, running: 2))

        #expect(turns.end(1, as: .finished, now: t0) == ["three"], "the slot goes straight to the one waiting")
        #expect(turns.isRunning(3))
        #expect(turns.end(2, as: .failed, now: t0) == [])
        #expect(turns.end(3, as: .cancelled, now: t0) == [])
        #expect(turns.end(3, as: .finished, now: t0) == [], "a turn ends once")
        #expect(turns.counts == WorkQueueCounts(finished: 1, failed: 1, cancelled: 1))
    }

    @Test func waitingTurnsStartHighestFirstThenInTheOrderAsked() {
        var turns = Turns(limit: 1, agingInterval: nil)
        _ = turns.ask(1, priority: .normal, continuation: "running", now: t0)
        _ = turns.ask(2, priority: .low, continuation: "low", now: t0)
        _ = turns.ask(3, priority: .normal, continuation: "normal-1", now: t0)
        _ = turns.ask(4, priority: .high, continuation: "high", now: t0)
        _ = turns.ask(5, priority: .normal, continuation: "normal-2", now: t0)
        var order: [String] = []
        for id: UInt64 in [1, 4, 3, 5] { order += turns.end(id, as: .finished, now: t0) }
        #expect(order == ["high", "normal-1", "normal-2", "low"])
    }

    @Test func aWaitingTurnRisesALevelForEachAgingInterval() {
        var turns = Turns(limit: 1, agingInterval: .seconds(10))
        _ = turns.ask(1, priority: .normal, continuation: "running", now: t0)
        _ = turns.ask(2, priority: .low, continuation: "old low", now: t0)
        _ = turns.ask(3, priority: .normal, continuation: "new normal", now: t0 + .seconds(10))
        // At 10 s the low one counts as normal and has waited longer.
        #expect(turns.end(1, as: .finished, now: t0 + .seconds(10)) == ["old low"])
    }

    @Test func aWaitingTurnFollowsItsJobsPriorityAndARunningOneGoesOn() {
        var turns = Turns(limit: 1, agingInterval: nil)
        _ = turns.ask(1, priority: .low, continuation: "running", now: t0)
        _ = turns.ask(2, priority: .normal, continuation: "normal", now: t0)
        _ = turns.ask(3, priority: .low, continuation: "raised", now: t0)
        turns.reprioritize(3, to: .veryHigh)
        turns.reprioritize(1, to: .veryHigh)
        #expect(turns.waiting(at: .veryHigh) == 1 && turns.waiting(at: .low) == 0)
        #expect(turns.end(1, as: .finished, now: t0) == ["raised"])
    }

    @Test func aCancelledWaitingTurnNeverRunsAndARunningOneIsNotTaken() {
        var turns = Turns(limit: 1, agingInterval: nil)
        _ = turns.ask(1, priority: .normal, continuation: "running", now: t0)
        _ = turns.ask(2, priority: .normal, continuation: "leaves", now: t0)
        _ = turns.ask(3, priority: .normal, continuation: "stays", now: t0)
        #expect(turns.cancel(2) == "leaves", "its caller is resumed, told it has no turn")
        #expect(turns.cancel(2) == nil)
        #expect(turns.cancel(1) == nil, "a running turn is stopped by its caller's own cancellation, not here")
        #expect(turns.end(1, as: .finished, now: t0) == ["stays"])
        #expect(turns.counts == WorkQueueCounts(running: 1, finished: 1, cancelled: 1))
    }

    @Test func memoryPressureCancelsTheLowWaitingTurnsOnly() {
        var turns = Turns(limit: 1, agingInterval: nil)
        _ = turns.ask(1, priority: .veryLow, continuation: "running", now: t0)
        _ = turns.ask(2, priority: .low, continuation: "low", now: t0)
        _ = turns.ask(3, priority: .veryLow, continuation: "very low", now: t0)
        _ = turns.ask(4, priority: .normal, continuation: "normal", now: t0)
        #expect(Set(turns.cancelWaiting(atOrBelow: .low)) == ["low", "very low"])
        #expect(turns.counts == WorkQueueCounts(waiting: 1, running: 1, cancelled: 2))
        #expect(turns.end(1, as: .finished, now: t0) == ["normal"])
    }

    @Test func aSuspendedQueueGivesNoSlotUntilResumed() {
        var turns = Turns(limit: 2, agingInterval: nil)
        turns.suspend()
        #expect(turns.ask(1, priority: .normal, continuation: "one", now: t0) == .waits)
        #expect(turns.ask(2, priority: .normal, continuation: "two", now: t0) == .waits)
        #expect(turns.ask(3, priority: .normal, continuation: "three", now: t0) == .waits)
        #expect(turns.resume(now: t0) == ["one", "two"])
        #expect(turns.counts == WorkQueueCounts(waiting: 1, running: 2))
    }

    /// Random asks, ends, cancels and priority changes: never more running
    /// than the limit, never a free slot while a turn waits, and the counts
    /// always those of the turns themselves.
    @Test func theLimitAndTheCountsHoldWhateverHappens() {
        var generator = SplitMix(seed: 0xDA7C)
        var turns = Turns(limit: 3, agingInterval: .seconds(1))
        // Arrays, not sets: a set's order changes from run to run.
        var running: [UInt64] = [], waiting: [UInt64] = []
        var ended = 0, next: UInt64 = 1
        var now = t0
        for _ in 0..<5_000 {
            now += .milliseconds(Int(generator.next() % 300))
            switch generator.next() % 4 {
            case 0, 1:
                let id = next
                next += 1
                let priority = WorkPriority(rawValue: Int(generator.next() % 5))!
                if turns.ask(id, priority: priority, continuation: "\(id)", now: now) == .runs { running.append(id) } else { waiting.append(id) }
            case 2:
                guard !running.isEmpty else { continue }
                let id = running.remove(at: Int(generator.next() % UInt64(running.count)))
                ended += 1
                for started in turns.end(id, as: .finished, now: now) {
                    let startedID = UInt64(started)!
                    #expect(waiting.contains(startedID), "only a waiting turn starts")
                    waiting.removeAll { $0 == startedID }
                    running.append(startedID)
                }
            default:
                guard !waiting.isEmpty else { continue }
                let index = Int(generator.next() % UInt64(waiting.count))
                if generator.next() % 2 == 0 {
                    #expect(turns.cancel(waiting[index]) == "\(waiting[index])")
                    waiting.remove(at: index)
                    ended += 1
                } else {
                    turns.reprioritize(waiting[index], to: WorkPriority(rawValue: Int(generator.next() % 5))!)
                }
            }
            #expect(running.count <= 3)
            #expect(waiting.isEmpty || running.count == 3, "no slot stays free while a turn waits")
            let counts = turns.counts
            #expect(counts.running == running.count && counts.waiting == waiting.count)
            #expect(counts.finished + counts.cancelled == ended)
        }
    }
}
