@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite struct ImagePipelineTests {
    @Test func memoryThenDiskThenNetwork() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            let request = f.request("/photos/Garden.jpg")

            let first = try await f.pipeline.image(for: request)
            #expect(first.cacheType == nil)
            #expect(f.origin.requests("/photos/Garden.jpg") == 1)

            let second = try await f.pipeline.image(for: request)
            #expect(second.cacheType == .memory)

            // The disk write runs after the answer: wait for it, as a slow
            // machine (or a sanitized build) may not have finished it yet.
            await f.pipeline.waitForDiskWrites()
            f.pipeline.memoryCache.removeAll()
            let third = try await f.pipeline.image(for: request)
            #expect(third.cacheType == .disk)
            #expect(third.image == first.image)
            #expect(f.origin.requests("/photos/Garden.jpg") == 1)
        }
    }

    /// A cold miss takes the core's lock a handful of times, whatever the
    /// source's size: joining and finishing its two jobs, a turn for each
    /// of its two slots, room for its download, its bytes' release; its
    /// download's progress, which nobody listens to, never enters it.
    @Test func aColdMissEntersTheCoreAFewTimes() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            await f.pipeline.waitForDiskWrites()
            let before = f.pipeline.core.entryCount
            let answer = try await f.pipeline.image(for: f.request("/photos/Garden.jpg"))
            let entries = f.pipeline.core.entryCount - before
            #expect(answer.cacheType == nil && f.origin.requests("/photos/Garden.jpg") == 1)
            print("a cold miss entered the core \(entries) times")
            #expect(entries <= 8, "a cold miss entered the core \(entries) times")
        }
    }

    /// A miss goes to the I/O threads once before its download: the
    /// result, the source's copy and the remembered failure are read in
    /// one trip (they were three, one after the other).
    @Test func aMissReadsTheDiskInOneTripBeforeItsDownload() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            #expect(f.pipeline.configuration.keepsFailuresOnDisk)
            f.origin.set(.held, for: "/photos/Dune.jpg")
            // The disk index is read at start, in the background.
            await f.pipeline.waitForDiskWrites()
            let before = f.pipeline.io.trips.value.load(ordering: .relaxed)
            let task = f.pipeline.imageTask(for: f.request("/photos/Dune.jpg"))
            #expect(await eventually { f.origin.requests("/photos/Dune.jpg") == 1 })
            #expect(f.pipeline.io.trips.value.load(ordering: .relaxed) - before == 1)
            f.origin.release("/photos/Dune.jpg")
            #expect(try await task.response.cacheType == nil)
        }
    }

    /// A second version of a source kept in memory: one trip for the
    /// result and the failure marker another process may have left, and
    /// the result's write after the answer.
    @Test func aSourceKeptInMemoryNeedsOneTripToo() async throws {
        let f = try await PipelineFixture.make { $0.recentSourceBytes = 16 << 20 }
        try await cleaningUp({ await f.close() }) { () async throws in
            _ = try await f.pipeline.image(for: f.request("/photos/Wood.jpg"))
            await f.pipeline.waitForDiskWrites()
            let before = f.pipeline.io.trips.value.load(ordering: .relaxed)
            let other = try await f.pipeline.image(for: f.request("/photos/Wood.jpg", [.grayscale]))
            await f.pipeline.waitForDiskWrites()
            #expect(other.cacheType == nil && f.origin.requests("/photos/Wood.jpg") == 1)
            #expect(f.pipeline.io.trips.value.load(ordering: .relaxed) - before == 2, "one read, one write")
        }
    }

    /// The queues and caches are read through `status`, the one public
    /// view of them.
    @Test func statusGivesTheQueuesAndCachesFigures() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            _ = try await f.pipeline.image(for: f.request("/photos/Aqua.jpg"))
            _ = try await f.pipeline.image(for: f.request("/photos/Aqua.jpg"))
            let status = f.pipeline.status
            #expect(status.downloads.finished == 1 && status.processing.finished == 1)
            #expect(status.processing.running == 0 && status.processing.waiting == 0)
            #expect(status.processingThreads == f.pipeline.configuration.filtrationConcurrency)
            #expect(status.memoryCache.count == 1 && status.memoryCache.hits == 1)
            #expect(status.memoryCacheLimit == f.pipeline.configuration.memoryCache.costLimit)
            #expect(status.diskCache != nil && status.sourceBytesInFlight == 0)
        }
    }

    @Test func aRestartServesFromDiskWithNoOriginRequest() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            let request = f.request("/photos/LadyBird.jpg")
            let before = try await f.pipeline.image(for: request)

            let again = try await f.restarted()
            let after = try await again.image(for: request)
            // Other processing of the same source: the original comes from disk too.
            let other = try await again.image(for: f.request("/photos/LadyBird.jpg", [.grayscale]))
            await again.shutdown()

            #expect(after.cacheType == .disk)
            #expect(after.image.data == before.image.data)
            #expect(other.cacheType == nil)
            #expect(f.origin.requests("/photos/LadyBird.jpg") == 1)
        }
    }

    @Test func aCorruptedDiskEntryIsRefetchedNotServed() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            let request = f.request("/photos/Wood.jpg")
            let good = try await f.pipeline.image(for: request)
            // Disk writes follow the answer: wait for them before touching the files.
            await f.pipeline.waitForDiskWrites()
            let disk = try #require(f.pipeline.diskCache)
            // Flip bytes in the middle of both stored entries.
            for key in [request.source.cacheKey, request.processedKey] {
                let url = disk.fileURL(for: key)
                var bytes = try Data(contentsOf: url)
                for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 1) { bytes[i] ^= 0xFF }
                try bytes.write(to: url)
            }
            let again = try await f.restarted()
            let response = try await again.image(for: request)
            await again.shutdown()
            #expect(response.cacheType == nil)
            #expect(response.image.data == good.image.data)
            #expect(f.origin.requests("/photos/Wood.jpg") == 2)
        }
    }

    @Test func eventsReportTheOriginalBeforeTheResult() async throws {
        let f = try await PipelineFixture.make()
        await cleaningUp({ await f.close() }) {
            let task = f.pipeline.imageTask(for: f.request("/photos/Aqua.jpg"))
            var kinds: [String] = []
            for await event in task.events {
                switch event {
                case .progress: if kinds.last != "progress" { kinds.append("progress") }
                case .original(let source): kinds.append("original:\(source.format.rawValue)")
                case .finished(let response): kinds.append("finished:\(response.image.width)")
                case .failed(let error): kinds.append("failed:\(error.kind)")
                }
            }
            #expect(kinds == ["progress", "original:jpeg", "finished:300"])
        }
    }

    /// Each reader of `events` has a stream of its own (one reader no
    /// longer takes events from another), and one who starts after the end
    /// is still told the outcome.
    @Test func everyReaderOfEventsIsToldEverythingAndTheOutcome() async throws {
        let f = try await PipelineFixture.make()
        await cleaningUp({ await f.close() }) {
            let task = f.pipeline.imageTask(for: f.request("/photos/Garden.jpg"))
            func kinds(_ events: AsyncStream<ImageTaskEvent>) async -> [String] {
                var kinds: [String] = []
                for await event in events {
                    switch event {
                    case .progress: if kinds.last != "progress" { kinds.append("progress") }
                    case .original: kinds.append("original")
                    case .finished(let response): kinds.append("finished:\(response.image.width)")
                    case .failed(let error): kinds.append("failed:\(error.kind)")
                    }
                }
                return kinds
            }
            let (first, second) = (task.events, task.events)
            async let one = kinds(first)
            async let two = kinds(second)
            let (a, b) = await (one, two)
            #expect(a == ["progress", "original", "finished:300"] && b == a, "\(a) \(b)")
            // Late: the latest progress and the outcome; the original's bytes
            // are no longer held.
            #expect(await kinds(task.events) == ["progress", "finished:300"])
        }
    }

    /// Cancelling the task that awaits `response` cancels the request (as
    /// Nuke forwards it): its work leaves the queue.
    @Test func cancellingTheAwaitingTaskCancelsTheRequest() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            f.pipeline.filtrationQueue.suspend()
            let task = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg"))
            let awaiting = Task { try await task.response }
            #expect(await eventually { f.pipeline.filtrationQueue.counts.waiting == 1 })
            awaiting.cancel()
            #expect(await eventually(20) { f.pipeline.filtrationQueue.counts.waiting == 0 }, "the work left the queue")
            // Resumed before the wait, so that a failure here cannot hang.
            f.pipeline.filtrationQueue.resume()
            let error = await #expect(throws: DarkroomError.self) { try await awaiting.value }
            #expect(error?.kind == .cancelled)
            let outcome = await kinds(of: task)
            #expect(outcome == "failed:cancelled", "\(outcome)")
        }
    }

    private func kinds(of task: ImageTask) async -> String {
        for await event in task.events {
            if case .failed(let error) = event { return "failed:\(error.kind)" }
            if case .finished = event { return "finished" }
        }
        return "ended without an outcome"
    }

    @Test(arguments: [
        ("/photos/DoesNotExist.jpg", DarkroomError.Kind.httpStatus),
        ("/README.md", .notAnImage),
    ])
    func theSeedListsWrongEntriesFailClearly(path: String, kind: DarkroomError.Kind) async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            do {
                _ = try await f.pipeline.image(for: f.request(path))
                Issue.record("\(path) did not fail")
            } catch let error as DarkroomError {
                #expect(error.kind == kind)
                #expect(error.reason.contains(path))
            }
        }
    }

    /// The memory of a failure is read on a clock the test moves: what it
    /// answers depends on the time that passed, not on how fast the
    /// machine reached the next request.
    @Test func aFailedURLIsRememberedThenTriedAgain() async throws {
        let clock = TestClock()
        let f = try await PipelineFixture.make(clock: clock) { $0.failureMemory = .seconds(8) }
        try await cleaningUp({ await f.close() }) { () async throws in
            f.origin.set(.status(404), for: "/photos/Storm.jpg")
            let request = f.request("/photos/Storm.jpg")
            let first = await #expect(throws: DarkroomError.self) { try await f.pipeline.image(for: request) }
            #expect(first?.statusCode == 404)
            let asked = f.origin.requests("/photos/Storm.jpg")
            #expect(asked >= 1)
            // The origin would answer now; the same failure, from memory, at
            // 7.9 s of 8, shows it was not asked.
            f.origin.set(.normal, for: "/photos/Storm.jpg")
            clock.advance(by: .milliseconds(7_900))
            let second = await #expect(throws: DarkroomError.self) { try await f.pipeline.image(for: request) }
            #expect(second?.statusCode == 404, "the second failure came from memory")
            #expect(second?.reason.contains("tried again in 1 s") == true, "\(String(describing: second))")
            #expect(f.origin.requests("/photos/Storm.jpg") == asked, "the origin was not asked again")

            // Past 8 s the memory (in this process and on disk) has expired:
            // the origin is asked again.
            clock.advance(by: .milliseconds(200))
            let response = try await f.pipeline.image(for: request)
            #expect(response.image.width == 300, "once the memory expired, the origin was asked again")
            #expect(f.origin.requests("/photos/Storm.jpg") == asked + 1)
        }
    }

    /// A pipeline on `clock` whose memory of failures lasts `memory`, and
    /// a request that has failed with a 404 and been kept on disk; the
    /// origin answers now, and has been asked `asked` times.
    func failureKeptOnDisk(clock: TestClock, memory: Duration) async throws -> (f: PipelineFixture, request: ImageRequest, asked: Int) {
        let f = try await PipelineFixture.make(clock: clock) { $0.failureMemory = memory }
        f.origin.set(.status(404), for: "/photos/Storm.jpg")
        let request = f.request("/photos/Storm.jpg")
        _ = try? await f.pipeline.image(for: request)
        f.origin.set(.normal, for: "/photos/Storm.jpg")
        return (f, request, f.origin.requests("/photos/Storm.jpg"))
    }

    /// A failure kept on disk holds for the next process, for the rest of
    /// its time only.
    @Test func aFailureKeptOnDiskHoldsAfterARestartUntilItExpires() async throws {
        let clock = TestClock()
        let (f, request, asked) = try await failureKeptOnDisk(clock: clock, memory: .seconds(30))
        try await cleaningUp({ await f.close() }) { () async throws in
            clock.advance(by: .seconds(20))
            let restarted = try await f.restarted(clock: clock)
            try await cleaningUp({ await restarted.shutdown() }) { () async throws in
                let remembered = await #expect(throws: DarkroomError.self) { try await restarted.image(for: request) }
                #expect(remembered?.statusCode == 404 && remembered?.reason.contains("tried again in") == true, "\(String(describing: remembered))")
                clock.advance(by: .milliseconds(10_100))
                #expect(try await restarted.image(for: request).image.width == 300)
                #expect(f.origin.requests("/photos/Storm.jpg") == asked + 1)
            }
        }
    }

    /// A failure kept by a run with a longer memory (fetch --retry-after)
    /// holds for its own span in a run whose memory is shorter.
    @Test func aFailureKeptForLongerHoldsForItsOwnSpan() async throws {
        let clock = TestClock()
        let (f, request, _) = try await failureKeptOnDisk(clock: clock, memory: .seconds(3600))
        try await cleaningUp({ await f.close() }) { () async throws in
            let restarted = try await f.restarted(clock: clock) { $0.failureMemory = .seconds(30) }
            try await cleaningUp({ await restarted.shutdown() }) { () async throws in
                clock.advance(by: .seconds(600))
                let remembered = await #expect(throws: DarkroomError.self) { try await restarted.image(for: request) }
                #expect(remembered?.statusCode == 404, "\(String(describing: remembered))")
                clock.advance(by: .seconds(3100))
                #expect(try await restarted.image(for: request).image.width == 300)
            }
        }
    }

    @Test func staleSourcesAreRevalidatedAndA304KeepsThem() async throws {
        let f = try await PipelineFixture.make { $0.sourceFreshness = .zero }
        try await cleaningUp({ await f.close() }) { () async throws in
            let first = try await f.pipeline.originalData(for: .url(f.origin.url("/photos/Aqua.jpg")))
            #expect(f.origin.lastHeaders("/photos/Aqua.jpg")?["if-none-match"] == nil, "the first request is not conditional")
            await f.pipeline.waitForDiskWrites()
            let again = try await f.pipeline.originalData(for: .url(f.origin.url("/photos/Aqua.jpg")))
            #expect(f.origin.requests("/photos/Aqua.jpg") == 2)
            let etag = try #require(first.etag)
            #expect(f.origin.lastHeaders("/photos/Aqua.jpg")?["if-none-match"] == etag, "the second asks with the ETag it holds")
            #expect(f.origin.notModifiedAnswers("/photos/Aqua.jpg") == 1, "and the origin answered 304")
            #expect(again.data == first.data, "the copy held is what the 304 kept")
        }
    }

    @Test func inMemorySourcesNeedNoNetwork() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            let data = try Fixtures.data("landscape.jpg")
            let response = try await f.pipeline.image(for: ImageRequest(source: .data(data, key: "landscape"), options: ProcessingOptions(operations: [.grayscale])))
            #expect(response.image.width == 240)
            #expect(f.origin.totalRequests == 0)
        }
    }

    @Test func memoryPressureEmptiesTheCacheAndCancelsWaitingLowPriorityWork() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            _ = try await f.pipeline.image(for: f.request("/photos/Aqua.jpg"))
            #expect(f.pipeline.memoryCache.statistics.count == 1)

            f.pipeline.filtrationQueue.suspend()
            let low = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg", priority: .low))
            let high = f.pipeline.imageTask(for: f.request("/photos/Garden.jpg", priority: .high))
            #expect(await eventually { f.pipeline.filtrationQueue.counts.waiting == 2 })

            f.pipeline.handleMemoryPressure()
            #expect(f.pipeline.memoryCache.statistics.count == 0)
            f.pipeline.filtrationQueue.resume()

            await #expect(throws: DarkroomError.self) { try await low.response }
            #expect(try await high.response.image.width == 300)
        }
    }

    @Test func cacheOnlyRequestsAnswerFromTheCachesAndNeverFetch() async throws {
        let f = try await PipelineFixture.make()
        try await cleaningUp({ await f.close() }) { () async throws in
            var request = f.request("/photos/Dune.jpg")
            request.admission = .cacheOnly
            let miss = await #expect(throws: DarkroomError.self) { try await f.pipeline.image(for: request) }
            #expect(miss?.kind == .notCached)
            #expect(f.origin.requests("/photos/Dune.jpg") == 0)

            request.admission = .always
            _ = try await f.pipeline.image(for: request)
            await f.pipeline.waitForDiskWrites()
            f.pipeline.memoryCache.removeAll()
            request.admission = .cacheOnly
            #expect(try await f.pipeline.image(for: request).cacheType == .disk)
            #expect(f.origin.requests("/photos/Dune.jpg") == 1)
        }
    }

    @Test func anOverloadedPipelineRefusesNewWorkButNotCacheHitsOrOtherRequests() async throws {
        let f = try await PipelineFixture.make { $0.maxWaitingProcessing = 1 }
        try await cleaningUp({ await f.close() }) { () async throws in
            var cached = f.request("/photos/Aqua.jpg")
            cached.admission = .unlessOverloaded
            _ = try await f.pipeline.image(for: cached)
            await f.pipeline.waitForDiskWrites()
            f.pipeline.memoryCache.removeAll()

            f.pipeline.filtrationQueue.suspend()
            let waiting = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg"))
            #expect(await eventually { f.pipeline.filtrationQueue.counts.waiting == 1 })

            var refused = f.request("/photos/Garden.jpg")
            refused.admission = .unlessOverloaded
            let error = await #expect(throws: DarkroomError.self) { try await f.pipeline.image(for: refused) }
            #expect(error?.kind == .overloaded)
            #expect(f.origin.requests("/photos/Garden.jpg") == 0, "refused before the download")
            #expect(try await f.pipeline.image(for: cached).cacheType == .disk, "a disk hit is answered while overloaded")

            // Admitted always (a viewer's rows): it waits its turn instead.
            let patient = f.pipeline.imageTask(for: f.request("/photos/Garden.jpg"))
            f.pipeline.filtrationQueue.resume()
            #expect(try await patient.response.image.width == 300)
            #expect(try await waiting.response.image.width == 300)
        }
    }

    /// The byte window counts a source once however many versions of it
    /// are being made, and a download waiting for room waits outside the
    /// download queue, holding no slot of it.
    @Test func theByteWindowCountsASourceOnceAndItsWaitersHoldNoDownloadSlot() async throws {
        let f = try await PipelineFixture.make { $0.maxSourceBytesInFlight = 1; $0.downloadConcurrency = 1 }
        try await cleaningUp({ await f.close() }) { () async throws in
            let wood = try Data(contentsOf: Corpus.photosFolder.appendingPathComponent("Wood.jpg")).count
            f.pipeline.filtrationQueue.suspend()
            let small = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg"))
            #expect(await eventually { f.pipeline.status.processing.waiting == 1 })
            // The second version reads the source from the disk, not past the full window.
            await f.pipeline.waitForDiskWrites()
            let other = f.request("/photos/Wood.jpg", [.resize(Resize(width: 120, height: 120))])
            let smaller = f.pipeline.imageTask(for: other)
            #expect(await eventually { f.pipeline.status.processing.waiting == 2 })
            #expect(f.pipeline.status.sourceBytesInFlight == wood, "two versions of one source hold its bytes once")

            let next = f.pipeline.imageTask(for: f.request("/photos/Garden.jpg"))
            #expect(await eventually { f.pipeline.status.downloadsWaitingForRoom == 1 })
            let status = f.pipeline.status
            #expect(status.downloads.running == 0 && status.downloads.waiting == 0, "no download slot is held: \(status.downloads)")
            #expect(f.origin.requests("/photos/Garden.jpg") == 0)

            f.pipeline.filtrationQueue.resume()
            #expect(try await small.response.image.width == 300)
            #expect(try await smaller.response.image.width == 120)
            #expect(try await next.response.image.width == 300)
            #expect(f.pipeline.status.sourceBytesInFlight == 0 && f.pipeline.status.downloadsWaitingForRoom == 0)
        }
    }

    /// Two requests for one image, one that may be refused and one that
    /// must be served, joined before their job looks at the load: the
    /// first gets its 429, the second its image.
    @Test func aRequestThatMustBeServedIsNotRefusedWithTheJobItJoined() async throws {
        let f = try await PipelineFixture.make { $0.maxWaitingProcessing = 1 }
        try await cleaningUp({ await f.close() }) { () async throws in
            f.pipeline.filtrationQueue.suspend()
            let waiting = f.pipeline.imageTask(for: f.request("/photos/Wood.jpg"))
            #expect(await eventually { f.pipeline.filtrationQueue.counts.waiting == 1 })

            // The I/O threads held, so the job waits at its disk lookup,
            // before the admission point, while both join it.
            let held = DispatchSemaphore(value: 0)
            let holding = Log()
            let io = f.pipeline.io
            let holders = (0..<2).map { _ in
                Task { try await io.run { holding.append("held"); held.wait() } }
            }
            #expect(await eventually { holding.all.count == 2 })
            var refusable = f.request("/photos/Garden.jpg")
            refusable.admission = .unlessOverloaded
            let refused = f.pipeline.imageTask(for: refusable)
            let served = f.pipeline.imageTask(for: f.request("/photos/Garden.jpg"))
            #expect(await eventually { f.pipeline.processJobs.waiterCount == 3 })
            held.signal()
            held.signal()
            for holder in holders { try await holder.value }

            let error = await #expect(throws: DarkroomError.self) { try await refused.response }
            #expect(error?.kind == .overloaded)
            f.pipeline.filtrationQueue.resume()
            #expect(try await served.response.image.width == 300)
            #expect(try await waiting.response.image.width == 300)
        }
    }
}
