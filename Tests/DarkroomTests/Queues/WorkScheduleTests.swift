@testable import Darkroom
import Testing

/// A named item for the schedule.
final class Job: Schedulable {
    var slot: ScheduleSlot?
    let name: String
    init(_ name: String) { self.name = name }
}

final class JobBox {
    private var jobs: [String: Job] = [:]
    func job(_ name: String) -> Job {
        if let job = jobs[name] { return job }
        let job = Job(name)
        jobs[name] = job
        return job
    }
}

@Suite struct WorkScheduleTests {
    let t0 = ContinuousClock.now
    private let jobs = JobBox()

    /// The job with this name, made on first use, so a test can refer to one
    /// item by name.
    func job(_ name: String) -> Job { jobs.job(name) }

    func drain(_ schedule: inout WorkSchedule<Job>, at now: ContinuousClock.Instant) -> [String] {
        var order: [String] = []
        while let next = schedule.popNext(now: now) { order.append(next.name) }
        return order
    }

    @Test func highestPriorityFirstThenFirstInFirstOut() {
        var s = WorkSchedule<Job>(agingInterval: nil)
        s.insert(job("low"), priority: .low, now: t0)
        s.insert(job("normal-1"), priority: .normal, now: t0)
        s.insert(job("veryHigh"), priority: .veryHigh, now: t0)
        s.insert(job("normal-2"), priority: .normal, now: t0)
        #expect(drain(&s, at: t0) == ["veryHigh", "normal-1", "normal-2", "low"])
        #expect(s.isEmpty)
    }

    @Test func aPriorityChangeMovesWaitingWork() {
        var s = WorkSchedule<Job>(agingInterval: nil)
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
        var s = WorkSchedule<Job>(agingInterval: nil)
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
        var s = WorkSchedule<Job>(agingInterval: .seconds(1))
        s.insert(job("old-low"), priority: .low, now: t0)
        s.insert(job("new-normal"), priority: .normal, now: t0 + .milliseconds(500))
        #expect(s.popNext(now: t0 + .milliseconds(500))?.name == "new-normal")
        var u = WorkSchedule<Job>(agingInterval: .seconds(1))
        u.insert(job("old-low, later"), priority: .low, now: t0)
        u.insert(job("new-normal, later"), priority: .normal, now: t0 + .milliseconds(1500))
        #expect(u.popNext(now: t0 + .milliseconds(1500))?.name == "old-low, later")
        var t = WorkSchedule<Job>(agingInterval: .seconds(1))
        t.insert(job("old-veryLow"), priority: .veryLow, now: t0)
        t.insert(job("fresh-normal"), priority: .normal, now: t0 + .seconds(3))
        // Waited 3 s: veryLow + 3 = high, above the fresh normal item.
        #expect(t.popNext(now: t0 + .seconds(3))?.name == "old-veryLow")
        #expect(t.effectivePriority(.veryLow, since: t0, now: t0 + .seconds(100)) == WorkPriority.veryHigh.rawValue)
    }

    @Test func withoutAgingLowWorkWaits() {
        var s = WorkSchedule<Job>(agingInterval: nil)
        s.insert(job("old-veryLow"), priority: .veryLow, now: t0)
        s.insert(job("fresh-normal"), priority: .normal, now: t0 + .seconds(300))
        #expect(s.popNext(now: t0 + .seconds(300))?.name == "fresh-normal")
    }

    @Test func removeAllAtOrBelowTakesOnlyThoseLevels() {
        var s = WorkSchedule<Job>(agingInterval: nil)
        s.insert(job("veryLow"), priority: .veryLow, now: t0)
        s.insert(job("low"), priority: .low, now: t0)
        s.insert(job("normal"), priority: .normal, now: t0)
        let removed = s.removeAll(atOrBelow: .low).map(\.name).sorted()
        #expect(removed == ["low", "veryLow"])
        #expect(drain(&s, at: t0) == ["normal"])
    }
}
