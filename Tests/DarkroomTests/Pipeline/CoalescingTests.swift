@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite struct CoalescingTests {
    @Test func concurrentIdenticalRequestsMakeOneDownloadAndOneFilterRun() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            f.origin.set(.held, for: "/photos/Aqua.jpg")
            let request = f.request("/photos/Aqua.jpg")

            let responses = try await withThrowingTaskGroup(of: ImageResponse.self) { group in
                for _ in 0..<8 { group.addTask { try await f.pipeline.image(for: request) } }
                // The origin answers once all eight have joined.
                #expect(await eventually { f.pipeline.processJobs.waiterCount == 8 && f.origin.requests("/photos/Aqua.jpg") == 1 })
                f.origin.release("/photos/Aqua.jpg")
                return try await group.reduce(into: []) { $0.append($1) }
            }

            #expect(responses.count == 8)
            #expect(Set(responses.map(\.image.data)).count == 1)
            #expect(f.origin.requests("/photos/Aqua.jpg") == 1)
            #expect(f.pipeline.filtrationQueue.counts.finished == 1)
            #expect(f.pipeline.processJobs.count == 0, "finished work is forgotten")
        }
    }

    @Test func differentProcessingOfOneSourceSharesTheDownload() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            f.origin.set(.held, for: "/photos/Storm.jpg")
            async let sepia = f.pipeline.image(for: f.request("/photos/Storm.jpg", [.sepia(intensity: 0.8)]))
            async let gray = f.pipeline.image(for: f.request("/photos/Storm.jpg", [.grayscale]))
            // Both versions wait on the one download before the origin answers.
            #expect(await eventually { f.pipeline.dataJobs.waiterCount == 2 && f.origin.requests("/photos/Storm.jpg") == 1 })
            f.origin.release("/photos/Storm.jpg")
            let (a, b) = try await (sepia, gray)
            #expect(a.image.data != b.image.data)
            #expect(f.origin.requests("/photos/Storm.jpg") == 1)
            #expect(f.pipeline.filtrationQueue.counts.finished == 2)
        }
    }

    @Test func cancellingOneOfTwoWaitersKeepsTheWorkGoing() async throws {
        let f = try await PipelineFixture.make { $0.loader.readTimeout = .seconds(120) }
        try await cleaningUp({ await f.close() }) { () async throws in
            // Held back until both have joined and one has left.
            f.origin.set(.held, for: "/photos/Dune.jpg")
            let request = f.request("/photos/Dune.jpg")
            let leaving = Task { try await f.pipeline.image(for: request) }
            let staying = Task { try await f.pipeline.image(for: request) }
            #expect(await eventually { f.pipeline.processJobs.waiterCount == 2 }, "both joined the one job")
            leaving.cancel()
            await #expect(throws: DarkroomError.self) { try await leaving.value }
            f.origin.release("/photos/Dune.jpg")
            let response = try await staying.value
            #expect(response.image.width == 300)
            #expect(f.origin.requests("/photos/Dune.jpg") == 1)
        }
    }

    @Test func cancellingEveryWaiterAbortsTheDownloadAndTheFilterNeverRuns() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            // A slow drip: the download is under way when the waiters leave.
            f.origin.set(.drip(chunk: 4096, every: .milliseconds(100)), for: "/photos/Blinds.jpg")
            let request = f.request("/photos/Blinds.jpg")
            let a = Task { try await f.pipeline.image(for: request) }
            let b = Task { try await f.pipeline.image(for: request) }
            #expect(await eventually { f.origin.requests("/photos/Blinds.jpg") == 1 })
            a.cancel()
            b.cancel()
            await #expect(throws: DarkroomError.self) { try await a.value }
            await #expect(throws: DarkroomError.self) { try await b.value }
            #expect(await eventually { f.origin.aborted("/photos/Blinds.jpg") == 1 }, "the origin saw the request aborted")
            #expect(await eventually { f.pipeline.dataJobs.count == 0 && f.pipeline.processJobs.count == 0 }, "the jobs ended")
            #expect(f.pipeline.filtrationQueue.counts == WorkQueueCounts())
            #expect(f.pipeline.memoryCache.statistics.count == 0, "cancelled work published nothing")
        }
    }

    @Test func aJobFollowsTheHighestPriorityOfItsWaiters() async throws {
        let f = try await PipelineFixture.make { $0.filtrationConcurrency = 1; $0.agingInterval = nil }
        try await cleaningUp({ await f.close() }) { () async throws in
            // Keep the one filtration slot busy, so the next jobs wait in the queue.
            f.pipeline.filtrationQueue.suspend()
            let low = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg", priority: .veryLow))
            let normal = f.pipeline.imageTask(for: f.request("/photos/Garden.jpg", priority: .normal))
            // Two downloads first: polled for longer, since a loaded run can take seconds.
            #expect(await eventually(120) { f.pipeline.filtrationQueue.counts.waiting == 2 })
            // A second waiter at veryHigh lifts the Wood job above Garden's.
            let urgent = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg", priority: .veryHigh))
            #expect(await eventually(60) { f.pipeline.filtrationQueue.waiting(at: .veryHigh) == 1 }, "the Wood job's queued work rose")
            let order = Log()
            let watchers = [("Wood", low), ("Garden", normal)].map { name, task in
                Task { _ = try? await task.response; order.append(name) }
            }
            f.pipeline.filtrationQueue.resume()
            for w in watchers { await w.value }
            _ = try await urgent.response
            #expect(order.all == ["Wood", "Garden"])
        }
    }
}
