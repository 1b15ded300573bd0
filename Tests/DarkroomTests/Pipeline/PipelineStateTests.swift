import Foundation
@testable import Darkroom
import Testing

/// The pipeline's coordination as one plain value: jobs, turns and
/// admission together, with strings for every waiter, so the rules that
/// cross parts (a job's priority reaching its queued work and the job it
/// waits for; admission per waiter) are checked without a task or a clock.
@Suite struct PipelineStateTests {
    enum Labels: PipelineWaiters {
        typealias Response = String
        typealias Source = String
        typealias Turn = String
        typealias Room = String
    }

    typealias State = PipelineState<Labels>
    let t0 = ContinuousClock.now

    private func started<Value, Waiter>(_ action: JobTable<String, Value, Waiter>.JoinAction) throws -> UInt64 {
        guard case .start(let job) = action else { throw Unexpected.join }
        return job
    }

    enum Unexpected: Error { case join }

    private func process(_ state: inout State, _ key: String, waiter: UInt64, _ priority: WorkPriority,
                         refusable: Bool = false) -> JobTable<String, ImageResponse, String>.JoinAction {
        state.join(key, in: \.processJobs, of: .processing, waiter: waiter, priority: priority, refusable: refusable, onEvent: nil)
    }

    @Test func aJobsPriorityMovesItsWaitingRun() throws {
        var state = State(downloads: 1, runs: 1, agingInterval: nil, sourceByteLimit: 1000)
        let busy = try started(process(&state, "busy", waiter: 1, .normal))
        let wood = try started(process(&state, "wood", waiter: 2, .low))
        let lake = try started(process(&state, "lake", waiter: 3, .normal))
        #expect(state.askTurn(10, of: .processing, for: busy, priority: .normal, continuation: "busy", now: t0) == .runs)
        #expect(state.askTurn(11, of: .processing, for: wood, priority: .normal, continuation: "wood", now: t0) == .waits)
        #expect(state.runs.waiting(at: .low) == 1, "the run waits at its job's priority, not the one it was asked at")
        #expect(state.askTurn(12, of: .processing, for: lake, priority: .normal, continuation: "lake", now: t0) == .waits)

        // Someone who cannot wait asks for the wood too.
        guard case .joined(wood, _) = process(&state, "wood", waiter: 4, .veryHigh) else {
            Issue.record("the second asker should join the wood's job")
            return
        }
        #expect(state.runs.waiting(at: .veryHigh) == 1)
        #expect(state.runs.end(10, as: .finished, now: t0) == ["wood"], "the wood's run goes first now")

        // And it falls back when they leave, if it still waits.
        _ = state.leave(4, in: \.processJobs, of: .processing)
        #expect(state.processJobs.priority(of: wood) == .low)
    }

    @Test func aProcessJobsPriorityReachesTheDownloadItWaitsFor() throws {
        var state = State(downloads: 1, runs: 2, agingInterval: nil, sourceByteLimit: 1000)
        let other = try started(state.join("other.jpg", in: \.dataJobs, of: .download, waiter: 90, priority: .normal, onEvent: nil))
        #expect(state.askTurn(20, of: .download, for: other, priority: .normal, continuation: "other", now: t0) == .runs)

        // Two versions of the same photo: each process job waits on the one download.
        let small = try started(process(&state, "photo.jpg/small", waiter: 1, .low))
        let large = try started(process(&state, "photo.jpg/large", waiter: 2, .normal))
        let download = try started(state.join("photo.jpg", in: \.dataJobs, of: .download, waiter: 100, priority: .normal,
                                              for: small, onEvent: nil))
        #expect(state.dataJobs.priority(of: download) == .low, "the data job's waiter counts at its process job's priority")
        _ = state.join("photo.jpg", in: \.dataJobs, of: .download, waiter: 101, priority: .low, for: large, onEvent: nil)
        #expect(state.dataJobs.priority(of: download) == .normal)
        #expect(state.askTurn(21, of: .download, for: download, priority: .veryLow, continuation: "photo", now: t0) == .waits)
        #expect(state.downloads.waiting(at: .normal) == 1)

        // The small version is wanted at once: its job, the download job and the download's turn rise together.
        _ = process(&state, "photo.jpg/small", waiter: 3, .veryHigh)
        #expect(state.processJobs.priority(of: small) == .veryHigh)
        #expect(state.dataJobs.priority(of: download) == .veryHigh)
        #expect(state.downloads.waiting(at: .veryHigh) == 1 && state.downloads.waiting(at: .normal) == 0)

        // That asker leaves: back to the large version's normal.
        _ = state.leave(3, in: \.processJobs, of: .processing)
        #expect(state.dataJobs.priority(of: download) == .normal)
        #expect(state.downloads.waiting(at: .normal) == 1)

        // The same through a waiter's own priority change.
        state.setPriority(.high, for: 2, in: \.processJobs, of: .processing)
        #expect(state.downloads.waiting(at: .high) == 1)
    }

    @Test func admissionIsEachWaitersOwn() throws {
        var state = State(downloads: 1, runs: 1, agingInterval: nil, sourceByteLimit: 1000)
        let overloaded = DarkroomError(.overloaded, "busy")
        let mixed = try started(process(&state, "mixed", waiter: 1, .high, refusable: true))
        _ = process(&state, "mixed", waiter: 2, .low)
        let refusableOnly = try started(process(&state, "refusable", waiter: 3, .normal, refusable: true))
        #expect(state.admit(mixed, maxWaiting: 1, error: overloaded) == nil, "nothing waits: everyone is let in")

        #expect(state.askTurn(30, of: .processing, for: nil, priority: .normal, continuation: "running", now: t0) == .runs)
        #expect(state.askTurn(31, of: .processing, for: nil, priority: .normal, continuation: "waiting", now: t0) == .waits)
        #expect(state.processJobs.wait(1, continuation: "one") == nil)

        let admitted = state.admit(mixed, maxWaiting: 1, error: overloaded)
        let refusal = try #require(admitted)
        #expect(refusal.refused == ["one"], "the waiter that may be refused is told now")
        #expect(refusal.goesOn, "the job goes on for the one that must be served")
        #expect(state.processJobs.priority(of: mixed) == .low, "and counts at that waiter's priority")

        let refusedAlone = state.admit(refusableOnly, maxWaiting: 1, error: overloaded)
        let alone = try #require(refusedAlone)
        #expect(!alone.goesOn)
        guard case .failure(let error)? = state.processJobs.wait(3, continuation: "three") else {
            Issue.record("a waiter that had not begun to wait finds the refusal when it does")
            return
        }
        #expect(error.kind == .overloaded)
        #expect(state.processJobs.priority(of: refusableOnly) == nil, "the job is over")
    }

    /// A downloaded source's bytes count from the moment they arrive: the
    /// data job's end holds them for the runs waiting on it before its
    /// download's room ends, so the next download waits although no run
    /// has begun; the same step passes its download slot on.
    @Test func aSourcesBytesCountFromArrivalUntilItsLastRunEnds() throws {
        var state = State(downloads: 1, runs: 1, agingInterval: nil, sourceByteLimit: 100)
        let small = try started(process(&state, "photo.jpg/small", waiter: 1, .normal))
        let large = try started(process(&state, "photo.jpg/large", waiter: 2, .normal))
        let photo = try started(state.join("photo.jpg", in: \.dataJobs, of: .download, waiter: 10, priority: .normal, for: small, onEvent: nil))
        _ = state.join("photo.jpg", in: \.dataJobs, of: .download, waiter: 11, priority: .normal, for: large, onEvent: nil)
        let photoGoes = state.askRoom(50, for: photo, continuation: "photo")
        #expect(photoGoes)
        let photoTurn = state.askTurn(60, of: .download, for: photo, priority: .normal, endsWithJob: true, continuation: "photo's turn", now: t0)
        #expect(photoTurn == .runs)
        let otherTurn = state.askTurn(61, of: .download, for: nil, priority: .normal, continuation: "other's turn", now: t0)
        #expect(otherTurn == .waits)
        let smallWaits = state.dataJobs.wait(10, continuation: "small") == nil
        #expect(smallWaits)

        // The photo arrives (80 of the window's 100 bytes); neither run has its turn yet.
        let bytes = SourceData(data: Data(count: 80), format: .jpeg)
        let ended = state.finishSource(photo, with: .success(bytes), now: t0)
        #expect(ended.results == ["small"], "the waiter waiting is resumed; the other finds the value when it waits")
        #expect(ended.turns == ["other's turn"], "the download's slot passes on in the same step")
        #expect(ended.rooms.isEmpty)
        #expect(state.sourceBytes.held == 80, "held once, for both versions")

        let next = try started(state.join("next.jpg", in: \.dataJobs, of: .download, waiter: 20, priority: .normal, onEvent: nil))
        let nextGoes = state.askRoom(51, for: next, continuation: "next")
        #expect(!nextGoes, "80 bytes wait for their runs: no room for another 80")

        // One run ends: the other still holds the photo.
        let afterSmall = state.finishRun(small, with: .failure(.cancelled), now: t0)
        #expect(afterSmall.rooms.isEmpty)
        let again = state.releaseSource(of: small)
        #expect(again.isEmpty, "a run releases once")
        #expect(state.sourceBytes.held == 80)
        // The last run ends: the next download goes.
        let afterLarge = state.finishRun(large, with: .failure(.cancelled), now: t0)
        #expect(afterLarge.rooms == ["next"])
        #expect(state.sourceBytes.held == 0)
    }

    /// A failed download holds nothing, and still ends its room.
    @Test func aFailedDownloadHoldsNothing() throws {
        var state = State(downloads: 1, runs: 1, agingInterval: nil, sourceByteLimit: 100)
        let run = try started(process(&state, "first.jpg/small", waiter: 1, .normal))
        let first = try started(state.join("first.jpg", in: \.dataJobs, of: .download, waiter: 10, priority: .normal, for: run, onEvent: nil))
        let firstGoes = state.askRoom(50, for: first, continuation: "first")
        #expect(firstGoes)
        let second = try started(state.join("second.jpg", in: \.dataJobs, of: .download, waiter: 20, priority: .normal, onEvent: nil))
        let secondGoes = state.askRoom(51, for: second, continuation: "second")
        #expect(!secondGoes, "the first download takes the window's share of its one slot")
        let ended = state.finishSource(first, with: .failure(DarkroomError(.httpStatus, "404")), now: t0)
        #expect(ended.rooms == ["second"])
        #expect(state.sourceBytes.held == 0)
        let released = state.releaseSource(of: run)
        #expect(released.isEmpty)
    }
}
