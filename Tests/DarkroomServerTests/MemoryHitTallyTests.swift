@testable import DarkroomServer
import NIOCore
import NIOEmbedded
import Testing
import TestSupport

/// An event loop's memory-cache hits reach the request metrics in batches:
/// a quarter of a second after the first, at once past the batch's size,
/// and whenever /metrics is about to be read.
@Suite struct MemoryHitTallyTests {
    let labels = ["http_route": ImageRoutes.metricsRoute, "http_request_method": "GET"]

    func counted(_ metrics: ServerMetrics, status: Int) -> (requests: Double?, durations: Double?) {
        let text = PrometheusText(metrics.text())
        var labels = labels
        labels["http_response_status_code"] = String(status)
        return (text.value("hb_requests", labels), text.value("http_server_request_duration_count", labels))
    }

    @Test func hitsReachTheSeriesAQuarterSecondAfterTheFirst() {
        let metrics = ServerMetrics(), loop = EmbeddedEventLoop()
        let tally = RequestRecorder(factory: metrics.factory, accessLog: nil).memoryHitTally(on: loop)
        tally.answered(status: 200, nanoseconds: 80_000)
        tally.answered(status: 200, nanoseconds: 2_000_000)
        tally.answered(status: 304, nanoseconds: 50_000)
        // Held on the loop: no series yet, not even an empty one.
        #expect(counted(metrics, status: 200).requests == nil)
        loop.advanceTime(by: .milliseconds(249))
        #expect(counted(metrics, status: 200).requests == nil)
        loop.advanceTime(by: .milliseconds(1))
        #expect(counted(metrics, status: 200) == (2, 2))
        #expect(counted(metrics, status: 304) == (1, 1))
        // The 2 ms answer is in the 5 ms bucket, not in the 1 ms one.
        let text = PrometheusText(metrics.text())
        #expect(text.value("http_server_request_duration_bucket", labels.merging(["http_response_status_code": "200", "le": "0.001"]) { $1 }) == 1)
        #expect(text.value("http_server_request_duration_bucket", labels.merging(["http_response_status_code": "200", "le": "0.005"]) { $1 }) == 2)
        // A later hit starts a new quarter second.
        tally.answered(status: 200, nanoseconds: 80_000)
        loop.advanceTime(by: .milliseconds(250))
        #expect(counted(metrics, status: 200) == (3, 3))
    }

    @Test func aLongBatchGoesAtOnceAndAFlushTakesTheRest() {
        let metrics = ServerMetrics(), loop = EmbeddedEventLoop()
        let tally = RequestRecorder(factory: metrics.factory, accessLog: nil).memoryHitTally(on: loop)
        for _ in 0..<MemoryHitTally.batch + 5 { tally.answered(status: 200, nanoseconds: 10_000) }
        #expect(counted(metrics, status: 200).requests == Double(MemoryHitTally.batch))
        tally.flush()
        #expect(counted(metrics, status: 200) == (Double(MemoryHitTally.batch + 5), Double(MemoryHitTally.batch + 5)))
        // The timer finds nothing left to count twice.
        loop.advanceTime(by: .seconds(1))
        #expect(counted(metrics, status: 200).requests == Double(MemoryHitTally.batch + 5))
    }

    @Test func eachLoopHasItsOwnTallyAndIdsThatDoNotRepeat() {
        let recorder = RequestRecorder(factory: ServerMetrics().factory, accessLog: nil)
        let (first, second) = (EmbeddedEventLoop(), EmbeddedEventLoop())
        #expect(recorder.memoryHitTally(on: first) === recorder.memoryHitTally(on: first))
        #expect(recorder.memoryHitTally(on: first) !== recorder.memoryHitTally(on: second))
        var seen = Set<String>()
        for loop in [first, second] {
            let tally = recorder.memoryHitTally(on: loop)
            for _ in 0..<1_000 {
                let id = tally.nextID()
                #expect(id.count == 32 && id.allSatisfy { $0.isHexDigit && !$0.isUppercase })
                seen.insert(id)
            }
        }
        #expect(seen.count == 2_000)
    }
}
