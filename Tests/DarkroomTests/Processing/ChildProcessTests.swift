@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// The child that draws PDF pages and video frames is bounded from this
/// side too: no environment, killed at the deadline or when the kill
/// switch is pulled, and never read past its output limit.
@Suite(.offCooperativePool) struct ChildProcessTests {
    func run(_ command: [String], input: Data = Data(), maxOutput: Int = 1 << 20, within: Duration = .seconds(60),
             killSwitch: KillSwitch = KillSwitch()) throws -> ChildProcess.Finished {
        try ChildProcess.run(command, input: input, maxOutput: maxOutput, deadline: .now + within, killSwitch: killSwitch)
    }

    /// Only its parent's process id, which tells it whether it was
    /// orphaned (and, in a sanitized build, the sanitizer's own settings,
    /// which its children need as it does).
    @Test func theChildSeesNoneOfTheServersEnvironment() throws {
        let env = try run(["/usr/bin/env"])
        let sanitizer = ProcessInfo.processInfo.environment
            .filter { name, _ in ["ASAN_", "UBSAN_", "TSAN_", "LSAN_"].contains { name.hasPrefix($0) } }.map { "\($0.key)=\($0.value)" }
        let seen = String(decoding: env.output, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(env.status == 0 && !env.signalled && seen.sorted() == (["DARKROOM_PARENT_PID=\(getpid())"] + sanitizer).sorted(), "\(seen)")
    }

    @Test func itsInputArrivesAndItsOutputIsBounded() throws {
        let echoed = try run(["/bin/cat"], input: Data("a page".utf8))
        #expect(echoed.status == 0 && echoed.output == Data("a page".utf8))
        let endless = try run(["/usr/bin/yes"], maxOutput: 1 << 16)
        #expect(endless.outputOverflowed && endless.killed && endless.output.count <= 1 << 16)
        // A child that ends without reading its input ends nothing here.
        let early = try run(["/bin/true"], input: Data(count: 4 << 20))
        #expect(early.status == 0)
    }

    @Test func theDeadlineAndTheKillSwitchEndIt() throws {
        let started = ContinuousClock.now
        let late = try run(["/bin/sleep", "60"], within: .milliseconds(300))
        #expect(late.killed && late.signalled)
        let pulled = KillSwitch()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { pulled.pull() }
        let cancelled = try run(["/bin/sleep", "60"], killSwitch: pulled)
        #expect(cancelled.killed && cancelled.signalled)
        #expect(ContinuousClock.now - started < .seconds(30), "killed, not waited for")
    }

    /// A child that cannot start is a failure whose answer names no path
    /// of the machine.
    @Test func aChildThatCannotStartNamesNoPath() throws {
        do {
            _ = try run(["/nonexistent/private/darkroom-child", "render-pdf-page"])
            Issue.record("a missing program started")
        } catch let error as DarkroomError {
            #expect(error.kind == .processingFailed && !error.description.contains("/"), "\(error)")
        }
    }
}
