@testable import Darkroom
import Testing

@Suite struct WorkScheduleTests {
    let t0 = ContinuousClock.now
    /// Items are their names: the schedule is keyed by id.
    func job(_ name: String) -> String { name }

    func drain(_ schedule: inout WorkSchedule<String>, at now: ContinuousClock.Instant) -> [String] {
        var order: [String] = []
        while let next = schedule.popNext(now: now) { order.append(next) }
        return order
    }

    @Test func highestPriorityFirstThenFirstInFirstOut() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(job("low"), priority: .low, now: t0)
        s.insert(job("normal-1"), priority: .normal, now: t0)
        s.insert(job("veryHigh"), priority: .veryHigh, now: t0)
        s.insert(job("normal-2"), priority: .normal, now: t0)
        #expect(drain(&s, at: t0) == ["veryHigh", "normal-1", "normal-2", "low"])
        #expect(s.isEmpty)
    }

    @Test func aPriorityChangeMovesWaitingWork() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(job("a"), priority: .normal, now: t0)
        s.insert(job("b"), priority: .normal, now: t0)
        s.reprioritize(job("b"), to: .high)
        s.reprioritize(job("a"), to: .low)
        s.reprioritize(job("a"), to: .normal)   // back again: one entry stays live
        #expect(s.count(at: .normal) == 1 && s.count(at: .low) == 0 && s.count == 2, "counted once")
        #expect(drain(&s, at: t0) == ["b", "a"])
        #expect(s.isEmpty)
    }

    @Test func removedWorkNeverComesOut() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(job("a"), priority: .normal, now: t0)
        s.insert(job("b"), priority: .normal, now: t0)
        let first = s.remove(job("a")), second = s.remove(job("a"))
        #expect(first)
        #expect(!second)
        #expect(s.count == 1)
        #expect(drain(&s, at: t0) == ["b"])
    }

    @Test func agingRaisesOldWorkOneLevelPerInterval() {
        // After 0.5 s the low item is still low: the normal one goes first.
        // After 1.5 s it counts as normal, and between equals the one that
        // has waited longest goes first.
        var s = WorkSchedule<String>(agingInterval: .seconds(1))
        s.insert(job("old-low"), priority: .low, now: t0)
        s.insert(job("new-normal"), priority: .normal, now: t0 + .milliseconds(500))
        #expect(s.popNext(now: t0 + .milliseconds(500)) == "new-normal")
        var u = WorkSchedule<String>(agingInterval: .seconds(1))
        u.insert(job("old-low, later"), priority: .low, now: t0)
        u.insert(job("new-normal, later"), priority: .normal, now: t0 + .milliseconds(1500))
        #expect(u.popNext(now: t0 + .milliseconds(1500)) == "old-low, later")
        var t = WorkSchedule<String>(agingInterval: .seconds(1))
        t.insert(job("old-veryLow"), priority: .veryLow, now: t0)
        t.insert(job("fresh-normal"), priority: .normal, now: t0 + .seconds(3))
        // Waited 3 s: veryLow + 3 = high, above the fresh normal item.
        #expect(t.popNext(now: t0 + .seconds(3)) == "old-veryLow")
        #expect(t.effectivePriority(.veryLow, since: t0, now: t0 + .seconds(100)) == WorkPriority.veryHigh.rawValue)
    }

    @Test func withoutAgingLowWorkWaits() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(job("old-veryLow"), priority: .veryLow, now: t0)
        s.insert(job("fresh-normal"), priority: .normal, now: t0 + .seconds(300))
        #expect(s.popNext(now: t0 + .seconds(300)) == "fresh-normal")
    }

    @Test func removeAllAtOrBelowTakesOnlyThoseLevels() {
        var s = WorkSchedule<String>(agingInterval: nil)
        s.insert(job("veryLow"), priority: .veryLow, now: t0)
        s.insert(job("low"), priority: .low, now: t0)
        s.insert(job("normal"), priority: .normal, now: t0)
        let removed = s.removeAll(atOrBelow: .low).sorted()
        #expect(removed == ["low", "veryLow"])
        #expect(drain(&s, at: t0) == ["normal"])
    }
}
