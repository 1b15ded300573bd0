@testable import Darkroom
import Testing
import TestSupport

@Suite struct MemoryCacheTests {
    @Test func evictsTheLeastRecentlyUsedByCost() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 100, countLimit: 100))
        cache.store(1, for: "a", cost: 40)
        cache.store(2, for: "b", cost: 40)
        _ = cache.value(for: "a")              // a is now more recent than b
        cache.store(3, for: "c", cost: 40)     // over 100: b goes
        #expect(cache.value(for: "a") == 1)
        #expect(cache.value(for: "b") == nil)
        #expect(cache.value(for: "c") == 3)
        #expect(cache.statistics.totalCost == 80)
        #expect(cache.statistics.evictions == 1)
    }

    @Test func evictsByCount() {
        let cache = MemoryCache<Int, Int>(configuration: .init(costLimit: 1_000, countLimit: 3))
        for i in 0..<5 { cache.store(i, for: i, cost: 1) }
        #expect(cache.statistics.count == 3)
        #expect(cache.value(for: 0) == nil)
        #expect(cache.value(for: 4) == 4)
    }

    /// On a clock of the test's own: fresh until the last instant of its
    /// time to live, gone at it, however slowly the test runs.
    @Test func expiresAfterItsTimeToLive() {
        let clock = TestClock()
        let cache = MemoryCache<String, Int>(configuration: .init(timeToLive: .milliseconds(50)), now: { clock.now })
        cache.store(1, for: "a", cost: 1)
        clock.advance(by: .milliseconds(49))
        #expect(cache.value(for: "a") == 1)
        clock.advance(by: .milliseconds(1))
        #expect(cache.value(for: "a") == nil)
        // Stored again, it lives again from then.
        cache.store(2, for: "a", cost: 1)
        clock.advance(by: .milliseconds(30))
        #expect(cache.value(for: "a") == 2)
    }

    @Test func countsHitsAndMissesAndEmptiesOnDemand() {
        let cache = MemoryCache<String, Int>()
        cache.store(1, for: "a", cost: 1)
        _ = cache.value(for: "a")
        _ = cache.value(for: "b")
        cache.removeAll()
        #expect(cache.value(for: "a") == nil)
        let s = cache.statistics
        #expect((s.hits, s.misses, s.count, s.totalCost) == (1, 2, 0, 0))
    }

    @Test func aValueLargerThanTheLimitIsNotStored() {
        let cache = MemoryCache<String, Int>(configuration: .init(costLimit: 10))
        cache.store(1, for: "huge", cost: 11)
        #expect(cache.value(for: "huge") == nil)
    }
}
