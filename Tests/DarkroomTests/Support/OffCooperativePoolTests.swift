import Foundation
import Testing
import TestSupport

/// The blocking suites' tests run on threads of their own, so that the
/// cooperative pool stays free for the tests that wait on time.
@Suite(.offCooperativePool) struct OffCooperativePoolTests {
    @Test func aSynchronousTestRunsOnABlockingTestThread() {
        #expect(BlockingTestExecutor.shared.isCurrent)
    }

    @Test func andAnAsynchronousOneAfterItResumes() async throws {
        try await Task.sleep(for: .milliseconds(1))
        #expect(BlockingTestExecutor.shared.isCurrent)
    }
}
