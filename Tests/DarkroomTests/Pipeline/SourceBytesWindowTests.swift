@testable import Darkroom
import Testing

/// The source bytes window's rules as plain values: strings stand in for
/// the waiters' continuations.
@Suite struct SourceBytesWindowTests {
    typealias Window = SourceBytesWindow<String>

    @Test func aSourceMadeInSeveralVersionsCountsOnce() {
        var window = Window(limit: 100)
        window.hold("url:a", bytes: 60)
        window.hold("url:a", bytes: 60)
        window.hold("url:a", bytes: 60)
        #expect(window.held == 60, "three runs of one source hold its bytes once")
        let startsNow = window.ask(1, continuation: "one")
        #expect(startsNow, "60 of 100: a download starts at once")
        _ = window.release("url:a")
        _ = window.release("url:a")
        #expect(window.held == 60, "held until the last run holding it ends")
        _ = window.release("url:a")
        #expect(window.held == 0)
        let tooMany = window.release("url:a")
        #expect(tooMany.isEmpty, "a release too many changes nothing")
        #expect(window.held == 0)
    }

    @Test func aFullWindowKeepsDownloadsWaitingInTheOrderAsked() {
        var window = Window(limit: 100)
        window.hold("url:a", bytes: 70)
        window.hold("url:b", bytes: 40)
        #expect(window.ask(1, continuation: "one") == false)
        #expect(window.ask(2, continuation: "two") == false)
        #expect(window.waiters == 2)
        // 70 of 100 now, and room for one source of the mean size (55).
        #expect(window.release("url:b") == ["one"], "let in one at a time, first asked first")
        #expect(window.ask(3, continuation: "three") == false, "a newcomer waits behind those waiting, though there is room")
        #expect(window.downloadEnded() == ["two"], "the download let in ended: the next is let in")
        #expect(window.downloadEnded() == ["three"])
        #expect(window.downloadEnded() == [], "nobody is left waiting")
        #expect(window.ask(4, continuation: "four") == true, "under the limit with nobody waiting: at once")
    }

    @Test func roomForSeveralLetsSeveralIn() {
        var window = Window(limit: 100)
        for (index, key) in ["a", "b", "c", "d", "e"].enumerated() { window.hold("url:\(key)", bytes: index == 4 ? 60 : 10) }
        #expect(window.held == 100)
        for id in 1...5 { #expect(window.ask(UInt64(id), continuation: "\(id)") == false) }
        // The mean source is 20 bytes: the 60 released make room for three.
        #expect(window.release("url:e") == ["1", "2", "3"])
        #expect(window.waiters == 2)
    }

    @Test func aWindowOverItsLimitLetsNobodyIn() {
        var window = Window(limit: 100)
        window.hold("url:a", bytes: 250)
        window.hold("url:b", bytes: 10)
        #expect(window.ask(1, continuation: "one") == false)
        #expect(window.release("url:b") == [], "250 of 100: still full")
        #expect(window.downloadEnded() == [])
        #expect(window.release("url:a") == ["one"], "a source larger than the window runs alone, then the next")
    }

    @Test func aCancelledWaiterLeavesTheLine() {
        var window = Window(limit: 10)
        window.hold("url:a", bytes: 10)
        #expect(window.ask(1, continuation: "one") == false)
        #expect(window.ask(2, continuation: "two") == false)
        #expect(window.cancel(1) == "one")
        #expect(window.cancel(1) == nil, "cancelled once")
        #expect(window.release("url:a") == ["two"])
    }
}
