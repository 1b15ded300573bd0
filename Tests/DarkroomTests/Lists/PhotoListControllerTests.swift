@testable import Darkroom
import Foundation
import Synchronization
import Testing
import TestSupport
import DarkroomImaging

/// Collects a controller's events in the background.
final class EventLog: Sendable {
    private let events = Locked<[PhotoRowEvent]>([])
    init(_ controller: PhotoListController) {
        Task { [self] in
            for await event in controller.events { events.withLock { $0.append(event) } }
        }
    }
    var all: [PhotoRowEvent] { events.withLock { $0 } }
    func states(of row: Int) -> [String] { all.filter { $0.row == row }.map(\.state.name) }
}

@Suite struct PhotoListControllerTests {
    struct Setup {
        let f: PipelineFixture
        let list: PhotoList
        let controller: PhotoListController
        let log: EventLog
        func path(_ row: Int) -> String { list.entries[row].url!.path }
        func close() async { await controller.close(); await f.close() }
    }

    func setup(prefetch: Int = 0) async throws -> Setup {
        let f = try await PipelineFixture.make()
        let list = try PhotoList.parse(Data(try SeedList.text(port: f.origin.port).utf8), origin: "seed")
        let controller = PhotoListController(list: list, pipeline: f.pipeline, prefetchDistance: prefetch)
        return Setup(f: f, list: list, controller: controller, log: EventLog(controller))
    }

    func row(_ s: Setup, named name: String) -> Int { s.list.entries.firstIndex { $0.name == name }! }

    @Test func onlyVisibleRowsStartWork() async throws {
        let s = try await setup()
        await s.controller.setVisibleRows(0..<3)
        #expect(await eventually(120) { s.log.all.filter { $0.state == .filtered }.count == 3 })
        for r in 0..<3 { #expect(s.f.origin.requests(s.path(r)) == 1) }
        for r in 3..<12 { #expect(s.f.origin.requests(s.path(r)) == 0, "row \(r) is not visible") }
        await s.close()
    }

    @Test func statesGoFromNewToDownloadedToFiltered() async throws {
        let s = try await setup()
        await s.controller.setVisibleRows([0])
        #expect(await eventually(120) { s.log.states(of: 0) == ["downloaded", "filtered"] })
        let event = try #require(s.log.all.last)
        #expect(event.image?.image.format == .jpeg)
        #expect(await s.controller.rows[0].state == .filtered)
        await s.close()
    }

    @Test func theSeedListsTwoWrongEntriesFail() async throws {
        let s = try await setup()
        await s.controller.setVisibleRows(0..<12)
        #expect(await eventually(120) { s.log.all.filter { $0.state == .filtered || $0.state.name == "failed" }.count == 12 })
        let rows = await s.controller.rows
        for name in SeedList.goodNames { #expect(rows[row(s, named: name)].state == .filtered, "\(name)") }
        guard case .failed(let missing) = rows[row(s, named: "Missing Photo")].state,
              case .failed(let notAPhoto) = rows[row(s, named: "Not A Photo")].state else {
            Issue.record("the wrong entries did not fail"); await s.close(); return
        }
        #expect(missing.contains("404"))
        #expect(notAPhoto.contains("not an image"))
        await s.close()
    }

    @Test func aRowNeverStartsTheSameWorkTwice() async throws {
        let s = try await setup()
        await s.controller.setVisibleRows([0])
        #expect(await eventually(120) { s.log.states(of: 0).last == "filtered" })
        s.f.pipeline.memoryCache.removeAll()
        await s.controller.setVisibleRows([1])
        await s.controller.setVisibleRows([0, 1])
        #expect(await eventually(120) { s.log.states(of: 1).last == "filtered" })
        #expect(s.log.states(of: 0) == ["downloaded", "filtered"])
        #expect(s.f.pipeline.filtrationQueue.counts.finished == 2)
        await s.close()
    }

    @Test func scrollingHoldsWorkAndEndingItCancelsOffScreenRows() async throws {
        let s = try await setup()
        // Rows 0-2 download slowly (the smallest, 80 KB, takes 40 s), so their
        // work is surely under way when they leave.
        for r in 0..<3 { s.f.origin.set(.drip(chunk: 1024, every: .milliseconds(500)), for: s.path(r)) }
        await s.controller.setVisibleRows(0..<3)
        #expect(await eventually(120) { (0..<3).allSatisfy { s.f.origin.requests(s.path($0)) == 1 } })

        // Rows 8-10 (Storm, Two Wings, Wood) scroll into view.
        await s.controller.beginScrolling()
        await s.controller.setVisibleRows(8..<11)
        try await Task.sleep(for: .milliseconds(150))
        for r in 8..<11 { #expect(s.f.origin.requests(s.path(r)) == 0, "held while scrolling") }
        #expect(await s.controller.pendingRows == Set(0..<3))

        await s.controller.endScrolling()
        #expect(await eventually(120) { (8..<11).allSatisfy { s.log.states(of: $0).last == "filtered" } })
        for r in 0..<3 {
            #expect(await eventually(120) { s.f.origin.aborted(s.path(r)) == 1 },
                    "row \(r)'s download was aborted: requests \(s.f.origin.requests(s.path(r))), aborted \(s.f.origin.aborted(s.path(r)))")
            #expect(!s.log.states(of: r).contains("filtered"))
        }
        let rows = await s.controller.rows
        for r in 0..<3 { #expect(rows[r].state == .new) }
        await s.close()
    }

    @Test func rowsNearTheVisibleOnesPrefetchAtLowPriority() async throws {
        let s = try await setup(prefetch: 2)
        await s.controller.setVisibleRows(4..<6)
        #expect(await eventually(120) { (2..<8).allSatisfy { s.log.states(of: $0).last == "filtered" || s.log.states(of: $0).last == "failed" } })
        #expect(s.f.origin.requests(s.path(0)) == 0 && s.f.origin.requests(s.path(9)) == 0)
        await s.close()
    }

    @Test func aLateResultNeverLandsOnAResetRow() async throws {
        let s = try await setup()
        s.f.origin.set(.delay(.milliseconds(300)), for: s.path(0))
        await s.controller.setVisibleRows([0])
        #expect(await eventually(120) { s.f.origin.requests(s.path(0)) == 1 })
        // The cell is reused for another photo before the first arrives.
        await s.controller.replace(row: 0, with: s.list.entries[4])
        #expect(await eventually(120) { s.log.states(of: 0).last == "filtered" })
        let last = try #require(s.log.all.last { $0.row == 0 && $0.state == .filtered })
        let expected = try await s.f.pipeline.image(for: ImageRequest(source: .url(s.list.entries[4].url!), options: s.controller.options))
        #expect(last.image?.image.data == expected.image.data, "the row shows the new photo, not the late one")
        try await Task.sleep(for: .milliseconds(400))
        #expect(s.log.states(of: 0).filter { $0 == "filtered" }.count == 1)
        await s.close()
    }
}
