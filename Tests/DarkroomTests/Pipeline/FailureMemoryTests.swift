@testable import Darkroom
import Foundation
import Testing

/// The memory of failed sources is bounded by bytes: thousands of long
/// URLs that fail move it by no more than its bound, the newest failures
/// are the ones kept, and a failure quoting a long URL keeps a cut reason.
@Suite struct FailureMemoryTests {
    static func longURL(_ index: Int) -> URL {
        URL(string: "http://10.0.0.1/\(index)/" + String(repeating: "a", count: 16_000) + ".jpg")!
    }

    @Test func thousandsOfLongFailuresStayWithinTheBound() {
        let memory = FailureMemory(duration: .seconds(30), maxBytes: 1 << 20)
        for index in 0..<5_000 {
            let url = Self.longURL(index)
            memory.remember(DarkroomError(.forbiddenSource, "\(url.absoluteString) is on a private network"), for: url)
            #expect(memory.bytes <= 1 << 20)
        }
        // The newest is kept, with its reason cut; the oldest is forgotten.
        let newest = memory.recentFailure(for: Self.longURL(4_999))
        #expect(newest?.kind == .forbiddenSource)
        #expect((newest?.reason.utf8.count ?? .max) < FailureMemory.longestText + 100)
        #expect(memory.recentFailure(for: Self.longURL(0)) == nil)
        #expect(memory.count > 500, "\(memory.count) failures kept in 1 MiB")
    }

    @Test func aFailureRememberedAgainIsCountedOnce() {
        let memory = FailureMemory(duration: .seconds(30), maxBytes: 1 << 20)
        let url = URL(string: "https://example.com/a.jpg")!
        for _ in 0..<10_000 { memory.remember(DarkroomError(.httpStatus, "404", statusCode: 404), for: url) }
        #expect(memory.count == 1)
        #expect(memory.bytes < 1_000)
        #expect(memory.recentFailure(for: url)?.statusCode == 404)
    }
}
