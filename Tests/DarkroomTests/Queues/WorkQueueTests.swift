@testable import Darkroom
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite struct WorkQueueTests {
    @Test func runsAtMostTheLimitAtOnce() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 2)
        let gate = Gate()
        let running = Atomic<Int>(0), peak = Atomic<Int>(0)
        let items = (0..<10).map { _ in
            queue.add { _ in
                let now = running.add(1, ordering: .relaxed).newValue
                peak.max(now, ordering: .relaxed)
                await gate.wait()
                running.subtract(1, ordering: .relaxed)
            }
        }
        // Held at the gate: two run, the rest wait for them.
        #expect(await eventually { running.load(ordering: .relaxed) == 2 && queue.counts.waiting == 8 })
        #expect(queue.counts.running == 2)
        gate.open()
        for item in items { try await item.value }
        let peakValue = peak.load(ordering: .relaxed)
        #expect(peakValue == 2)
        #expect(queue.counts == WorkQueueCounts(finished: 10))
    }

    @Test func waitingWorkStartsInPriorityOrder() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1, agingInterval: nil)
        let gate = Gate(), log = Log()
        let blocker = queue.add { _ in await gate.wait() }
        #expect(await eventually { blocker.state == .running })
        let items = [(WorkPriority.low, "low"), (.veryHigh, "veryHigh"), (.normal, "normal"), (.high, "high")].map { priority, name in
            queue.add(priority: priority) { _ in log.append(name) }
        }
        items[0].setPriority(.veryHigh)   // low jumps the queue, behind the other veryHigh
        gate.open()
        for item in items { try await item.value }
        #expect(log.all == ["veryHigh", "low", "high", "normal"])
    }

    /// Aging, on a clock moved by hand: an item that has waited long
    /// enough starts before newer work of a higher priority.
    @Test func agingLetsOldLowWorkOvertakeNewerHigherWork() async throws {
        let clock = TestClock()
        let queue = WorkQueue(name: "test", maxConcurrent: 1, agingInterval: .seconds(10), clock: { clock.now })
        let gate = Gate(), log = Log()
        let blocker = queue.add { _ in await gate.wait() }
        #expect(blocker.state == .running, "a free slot starts work as it is added")
        let old = queue.add(priority: .veryLow) { _ in log.append("old veryLow") }
        clock.advance(by: .seconds(40))   // four levels' worth of waiting: veryLow counts as veryHigh
        let fresh = queue.add(priority: .high) { _ in log.append("fresh high") }
        gate.open()
        try await old.value
        try await fresh.value
        #expect(log.all == ["old veryLow", "fresh high"])
    }

    /// The same two items without the wait: priority decides.
    @Test func withoutWaitingPriorityWins() async throws {
        let clock = TestClock()
        let queue = WorkQueue(name: "test", maxConcurrent: 1, agingInterval: .seconds(10), clock: { clock.now })
        let gate = Gate(), log = Log()
        let blocker = queue.add { _ in await gate.wait() }
        let old = queue.add(priority: .veryLow) { _ in log.append("old veryLow") }
        clock.advance(by: .seconds(9))
        let fresh = queue.add(priority: .high) { _ in log.append("fresh high") }
        gate.open()
        try await blocker.value
        try await old.value
        try await fresh.value
        #expect(log.all == ["fresh high", "old veryLow"])
    }

    @Test func suspendHoldsWorkAndResumeStartsIt() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 2)
        queue.suspend()
        let item = queue.add { _ in 42 }
        // A free slot starts work as it is added: still waiting means held.
        #expect(item.state == .waiting)
        #expect(queue.counts.waiting == 1)
        queue.resume()
        #expect(try await item.value == 42)
    }

    @Test func cancellingWaitingWorkMeansItNeverRuns() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let gate = Gate(), ran = Atomic<Bool>(false)
        let blocker = queue.add { _ in await gate.wait() }
        let item = queue.add { _ in ran.store(true, ordering: .relaxed) }
        item.cancel()
        gate.open()
        try await blocker.value
        await #expect(throws: DarkroomError.self) { try await item.value }
        #expect(item.state == .cancelled)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
        #expect(queue.counts.cancelled == 1)
    }

    @Test func cancellingRunningWorkIsSeenAndPublishesNothing() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let started = Gate()
        let item = queue.addBlocking { context -> String in
            started.open()
            while !context.isCancelled { usleep(1000) }
            try context.checkCancellation()
            return "published"
        }
        await started.wait()
        item.cancel()
        do {
            _ = try await item.value
            Issue.record("cancelled work published a value")
        } catch {
            #expect(error.kind == .cancelled)
        }
        #expect(item.state == .cancelled)
    }

    @Test func aCancelReachesRunningBlockingWorkThroughItsHandler() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let started = Gate()
        let stopped = Gate()
        let item = queue.addBlocking { context -> String in
            try context.withCancellationHandler({ stopped.open() }) {
                started.open()
                // Busy as a C call would be, until the handler stops it
                // (the item's own flag is not looked at).
                while !stopped.isOpen { usleep(1000) }
                try context.checkCancellation()
                return "published"
            }
        }
        await started.wait()
        item.cancel()
        await #expect(throws: DarkroomError.self) { _ = try await item.value }
        #expect(item.state == .cancelled)

        // Registered after the cancel: called at once.
        let late = Gate()
        let cancelledFirst = queue.addBlocking { context in
            context.withCancellationHandler({ late.open() }) { late.isOpen }
        }
        cancelledFirst.cancel()
        _ = try? await cancelledFirst.value
        #expect(cancelledFirst.state == .cancelled)
    }

    @Test func cancellingRunningAsyncWorkInterruptsItAndTheQueueGoesOn() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let started = Gate()
        let interrupted = Gate()
        let item = queue.add { _ -> String in
            started.open()
            do {
                // An hour: only an interruption ends it within the test.
                try await Task.sleep(for: .seconds(3600))
            } catch {
                interrupted.open()
                throw error
            }
            return "published"
        }
        await started.wait()
        item.cancel()
        await #expect(throws: DarkroomError.self) { try await item.value }
        #expect(await eventually { interrupted.isOpen }, "the running work was interrupted, not left to finish")
        // Its slot is free again: the next item runs.
        let next = queue.add { _ in 7 }
        #expect(try await next.value == 7)
        #expect(queue.counts.cancelled == 1 && queue.counts.finished == 1)
    }

    @Test func aFailedDependencyFailsItsDependentWithoutRunningIt() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 2)
        let ran = Atomic<Bool>(false)
        let download = queue.add { _ -> Data in throw DarkroomError(.workFailed, "404") }
        let filter = queue.add(dependencies: [download]) { _ in ran.store(true, ordering: .relaxed) }
        do {
            try await filter.value
            Issue.record("the dependent ran")
        } catch {
            #expect(error.kind == .dependencyFailed)
        }
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
        #expect(filter.state == .failed)
    }

    @Test func aCancelledDependencyFailsItsDependent() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        let gate = Gate()
        let download = queue.add { _ in await gate.wait() }
        let filter = queue.add(dependencies: [download]) { _ in "filtered" }
        download.cancel()
        gate.open()
        await #expect(throws: DarkroomError.self) { try await filter.value }
        #expect(filter.state == .failed)
    }

    @Test func aDependentRunsAfterItsDependencies() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 4)
        let log = Log(), gate = Gate()
        let a = queue.add { _ in await gate.wait(); log.append("a") }
        let b = queue.add { _ in log.append("b") }
        let c = queue.add(dependencies: [a, b]) { _ in log.append("c") }
        // b is done and a slot is free, but a is not: c waits.
        #expect(await eventually { b.state == .finished && a.state == .running })
        #expect(c.state == .waiting && log.all == ["b"])
        gate.open()
        try await c.value
        #expect(log.all == ["b", "a", "c"])
    }

    @Test func cancelWaitingAtOrBelowLeavesHigherWork() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 1)
        queue.suspend()
        let low = queue.add(priority: .low) { _ in 1 }
        let high = queue.add(priority: .high) { _ in 2 }
        #expect(queue.cancelWaiting(atOrBelow: .low) == 1)
        queue.resume()
        #expect(try await high.value == 2)
        #expect(low.state == .cancelled)
    }

    /// Many items, some cancelled while they wait or run, some depending
    /// on others: the limit holds, every item ends once, and the counts
    /// add up to what was added.
    @Test func theLimitAndTheCountsHoldUnderCancelsAndDependencies() async throws {
        let queue = WorkQueue(name: "test", maxConcurrent: 3)
        let running = Atomic<Int>(0), peak = Atomic<Int>(0)
        var items: [WorkItem<Int>] = []
        for index in 0..<600 {
            let dependencies: [any WorkDependency] = index % 7 == 0 && index > 0 ? [items[index - 1]] : []
            let item = queue.add(priority: WorkPriority.allCases[index % WorkPriority.allCases.count], dependencies: dependencies) { _ in
                peak.max(running.add(1, ordering: .relaxed).newValue, ordering: .relaxed)
                defer { running.subtract(1, ordering: .relaxed) }
                if index % 5 == 0 { try await Task.sleep(for: .milliseconds(1)) }
                return index
            }
            items.append(item)
            if index % 3 == 0 { items[index / 2].cancel() }
        }
        var ended = WorkQueueCounts()
        for item in items {
            do {
                _ = try await item.value
                ended.finished += 1
            } catch {
                if error.kind == .cancelled { ended.cancelled += 1 } else { ended.failed += 1 }
            }
        }
        #expect(await eventually { queue.counts == ended })
        #expect(ended.finished + ended.cancelled + ended.failed == 600 && ended.cancelled > 0)
        #expect(peak.load(ordering: .relaxed) <= 3)
    }
}
