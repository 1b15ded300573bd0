@testable import Darkroom
import Testing

@Suite struct WorkScheduleTests {
    let t0 = ContinuousClock.now

    func drain(_ schedule: inout WorkSchedule<String>, at now: ContinuousClock.Instant) -> [String] {
        var order: [String] = []
        while let next = schedule.popNext(now: now) { order.append(next.payload) }
        return order
    }

    @Test func highestPriorityFirstThenFirstInFirstOut() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(1, "low", priority: .low, now: t0)
        s.insert(2, "normal-1", priority: .normal, now: t0)
        s.insert(3, "veryHigh", priority: .veryHigh, now: t0)
        s.insert(4, "normal-2", priority: .normal, now: t0)
        #expect(drain(&s, at: t0) == ["veryHigh", "normal-1", "normal-2", "low"])
        #expect(s.isEmpty)
    }

    @Test func aPriorityChangeMovesWaitingWork() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(1, "a", priority: .normal, now: t0)
        s.insert(2, "b", priority: .normal, now: t0)
        s.reprioritize(2, "b", to: .high)
        s.reprioritize(1, "a", to: .low)
        s.reprioritize(1, "a", to: .normal)   // back again: one entry stays live
        #expect(drain(&s, at: t0) == ["b", "a"])
    }

    @Test func removedWorkNeverComesOut() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(1, "a", priority: .normal, now: t0)
        s.insert(2, "b", priority: .normal, now: t0)
        let first = s.remove(1), second = s.remove(1)
        #expect(first)
        #expect(!second)
        #expect(s.count == 1)
        #expect(drain(&s, at: t0) == ["b"])
    }

    @Test func agingRaisesOldWorkOneLevelPerInterval() {
        // After 1.5 s the low item counts as normal: a tie, which the item
        // queued at normal wins. After 2.5 s it counts as high, and goes first.
        var s = WorkSchedule<String>(agingInterval: .seconds(1))
        s.insert(1, "old-low", priority: .low, now: t0)
        s.insert(2, "new-normal", priority: .normal, now: t0 + .milliseconds(1500))
        #expect(s.popNext(now: t0 + .milliseconds(1500))?.payload == "new-normal")
        var u = WorkSchedule<String>(agingInterval: .seconds(1))
        u.insert(1, "old-low", priority: .low, now: t0)
        u.insert(2, "new-normal", priority: .normal, now: t0 + .milliseconds(2500))
        #expect(u.popNext(now: t0 + .milliseconds(2500))?.payload == "old-low")
        var t = WorkSchedule<String>(agingInterval: .seconds(1))
        t.insert(1, "old-veryLow", priority: .veryLow, now: t0)
        t.insert(2, "fresh-normal", priority: .normal, now: t0 + .seconds(3))
        // Waited 3 s: veryLow + 3 = high, above the fresh normal item.
        #expect(t.popNext(now: t0 + .seconds(3))?.payload == "old-veryLow")
        #expect(t.effectivePriority(.veryLow, since: t0, now: t0 + .seconds(100)) == WorkPriority.veryHigh.rawValue)
    }

    @Test func withoutAgingLowWorkWaits() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(1, "old-veryLow", priority: .veryLow, now: t0)
        s.insert(2, "fresh-normal", priority: .normal, now: t0 + .seconds(300))
        #expect(s.popNext(now: t0 + .seconds(300))?.payload == "fresh-normal")
    }

    @Test func removeAllAtOrBelowTakesOnlyThoseLevels() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(1, "veryLow", priority: .veryLow, now: t0)
        s.insert(2, "low", priority: .low, now: t0)
        s.insert(3, "normal", priority: .normal, now: t0)
        let removed = s.removeAll(atOrBelow: .low).map(\.payload).sorted()
        #expect(removed == ["low", "veryLow"])
        #expect(drain(&s, at: t0) == ["normal"])
    }
}
