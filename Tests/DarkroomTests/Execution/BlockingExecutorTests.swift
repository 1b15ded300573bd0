@testable import Darkroom
import Foundation
import Testing

/// A pool made for heavy work runs it at the nice value asked, so the
/// kernel prefers other threads when the cores are all busy; NIO's shared
/// pool is left as it is.
@Suite struct BlockingExecutorTests {
    /// The calling thread's nice value, as the kernel reports it.
    @Sendable static func currentNice() throws -> Int {
        let stat = try String(contentsOfFile: "/proc/thread-self/stat", encoding: .utf8)
        // Fields after the command name, which is in parentheses.
        let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
        return Int(fields[16])!
    }

    @Test func aPoolRunsItsWorkAtTheNiceValueAsked() async throws {
        let niced = BlockingExecutor(threads: 2, niceness: 7)
        for _ in 0..<4 { #expect(try await niced.run { try Self.currentNice() } == 7) }
        await niced.shutdown()
        let plain = BlockingExecutor(threads: 1)
        #expect(try await plain.run { try Self.currentNice() } == 0)
        await plain.shutdown()
        let clamped = BlockingExecutor(threads: 1, niceness: 99)
        #expect(try await clamped.run { try Self.currentNice() } == 19)
        await clamped.shutdown()
    }

    @Test func aPipelinesFiltersRunAtItsNiceness() async throws {
        var configuration = ImagePipeline.Configuration()
        configuration.diskCache = nil
        configuration.filtrationNiceness = 5
        let pipeline = try ImagePipeline(configuration: configuration)
        #expect(try await pipeline.filtrationQueue.executor.run { try Self.currentNice() } == 5)
        await pipeline.shutdown()
    }
}
