@testable import Darkroom
import Testing

/// The rule for work with dependencies, as a plain value.
@Suite struct DependencyWaitTests {
    @Test func anItemIsReadyOnceWhenEveryDependencyHasFinished() {
        var wait = DependencyWait(count: 3)
        #expect(wait.ended(.finished) == .waits)
        #expect(wait.ended(.finished) == .waits)
        #expect(wait.ended(.finished) == .ready)
        #expect(wait.settled)
    }

    @Test(arguments: [WorkState.failed, .cancelled])
    func oneDependencyThatDoesNotFinishFailsTheItemAtOnce(ending: WorkState) {
        var wait = DependencyWait(count: 3)
        #expect(wait.ended(.finished) == .waits)
        #expect(wait.ended(ending) == .failed(ending), "failed before the last dependency ends")
        #expect(wait.ended(.finished) == .waits, "settled: the rest change nothing")
        #expect(wait.ended(.failed) == .waits, "and it fails once")
    }

    @Test func aDependencyThatFailsAfterTheOthersFinishedStillFailsTheItem() {
        var wait = DependencyWait(count: 2)
        #expect(wait.ended(.finished) == .waits)
        #expect(wait.ended(.failed) == .failed(.failed))
    }
}
