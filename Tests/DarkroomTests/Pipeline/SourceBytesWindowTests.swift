@testable import Darkroom
import Testing

/// The source bytes window's rules as plain values: strings stand in for
/// the waiters' continuations.
@Suite struct SourceBytesWindowTests {
    typealias Window = SourceBytesWindow<String>

    @Test func aSourceMadeInSeveralVersionsCountsOnce() {
        var window = Window(limit: 150)
        window.hold("url:a", bytes: 60)
        window.hold("url:a", bytes: 60)
        window.hold("url:a", bytes: 60)
        #expect(window.held == 60, "three runs of one source hold its bytes once")
        let startsNow = window.ask(1, continuation: "one")
        #expect(startsNow, "60 held and 60 expected, of 150: a download starts at once")
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
        window.hold("url:a", bytes: 40)
        window.hold("url:b", bytes: 40)
        #expect(window.ask(1, continuation: "one") == false, "80 held and 40 expected: over 100")
        #expect(window.ask(2, continuation: "two") == false)
        #expect(window.waiters == 2)
        // 40 held now, and room for one source of the mean size (40).
        #expect(window.release("url:b") == ["one"], "let in as room appears, first asked first")
        #expect(window.expected == 80, "the download let in counts at the mean size")
        #expect(window.ask(3, continuation: "three") == false, "a newcomer waits behind those waiting")
        #expect(window.downloadEnded(1) == ["two"], "the download let in ended: the next is let in")
        #expect(window.downloadEnded(2) == ["three"])
        #expect(window.downloadEnded(3) == [], "nobody is left waiting")
        #expect(window.ask(4, continuation: "four") == true, "room, with nobody waiting: at once")
    }

    @Test func aBurstAtAnEmptyWindowTakesTheRoomItIsExpectedToFill() {
        var window = Window(limit: 100)
        window.hold("url:a", bytes: 20)
        _ = window.release("url:a")
        #expect(window.held == 0 && window.expected == 0)
        let started = (1...10).filter { window.ask(UInt64($0), continuation: "\($0)") }
        #expect(started == [1, 2, 3, 4, 5], "five sources of the mean size (20) fill 100; the rest wait")
        #expect(window.expected == 100 && window.waiters == 5)
    }

    @Test func beforeAnySourceIsSeenTheDownloadSlotsGo() {
        var window = Window(limit: 1000, downloadsBeforeSizeKnown: 2)
        let first = window.ask(1, continuation: "one"), second = window.ask(2, continuation: "two")
        #expect(first && second, "the size of a source is not known yet: as many as the download slots")
        #expect(window.ask(3, continuation: "three") == false)
        #expect(window.ask(4, continuation: "four") == false)
        #expect(window.downloadEnded(1) == ["three"], "a failed download told nothing")
        window.hold("url:b", bytes: 100)
        #expect(window.downloadEnded(2) == ["four"], "a source of 100 seen: room for the rest")
        let fifth = window.ask(5, continuation: "five")
        #expect(fifth, "100 held, 200 expected, 100 asked: 400 of 1000")
    }

    /// Whatever the order of asks, holds, releases, ends and cancellations,
    /// a download is let in only where the bytes held and expected, with
    /// it, stay within the limit, or it goes alone.
    @Test func aDownloadIsNeverLetInOverTheLimit() {
        var window = Window(limit: 1000, downloadsBeforeSizeKnown: 6)
        var state: UInt32 = 7
        func next(_ bound: Int) -> Int {
            state = state &* 1_103_515_245 &+ 12345
            return Int(state >> 16) % bound
        }
        var waiting: [UInt64] = [], downloading: [UInt64] = [], held: [String] = []
        var lettings = 0
        func letIn(_ ids: [String]) {
            guard !ids.isEmpty else { return }
            for id in ids.map({ UInt64($0)! }) {
                waiting.removeAll { $0 == id }
                downloading.append(id)
                lettings += 1
            }
            #expect(window.expected <= 1000 || (window.downloads == 1 && window.held == 0), "\(window.expected) expected")
        }
        for step in 0..<5000 {
            switch next(5) {
            case 0:
                let id = UInt64(step)
                if window.ask(id, continuation: "\(id)") { letIn(["\(id)"]) } else { waiting.append(id) }
            case 1 where !downloading.isEmpty:
                // A download ends; most become a source a run holds.
                let id = downloading.remove(at: next(downloading.count))
                if next(4) > 0 {
                    let key = "url:\(id)"
                    window.hold(key, bytes: 50 + next(200))
                    held.append(key)
                }
                letIn(window.downloadEnded(id))
            case 2 where !held.isEmpty:
                letIn(window.release(held.remove(at: next(held.count))))
            case 3 where !waiting.isEmpty:
                let id = waiting.remove(at: next(waiting.count))
                #expect(window.cancel(id) == "\(id)")
            default:
                break
            }
        }
        #expect(lettings > 500, "the sequence let many downloads in: \(lettings)")
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
        #expect(window.downloadEnded(7) == [], "an id never let in changes nothing")
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
