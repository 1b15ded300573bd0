import DarkroomImaging
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs another program with bytes on its standard input and reads its
/// standard output, bounded: killed at the deadline or when the kill
/// switch is pulled, and when it writes more than `maxOutput` bytes. Its
/// standard error goes nowhere (a hostile file can make a parser write
/// without end). Blocking: call it on a dedicated thread.
package enum ChildProcess {
    struct Finished {
        var status: Int32
        /// Ended by a signal: killed here, or by its own limits.
        var signalled: Bool
        var output: Data
        /// Ended here: the deadline, the kill switch, or too much output.
        var killed: Bool
        var outputOverflowed: Bool
    }

    /// The variable that holds the parent's process id, for the child.
    package static let parentVariable = "DARKROOM_PARENT_PID"

    /// A child that ends early must not end this process with SIGPIPE as
    /// its input is written.
    private static let brokenPipesIgnored: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    static func run(_ command: [String], input: Data, maxOutput: Int, deadline: ContinuousClock.Instant,
                    killSwitch: KillSwitch) throws(DarkroomError) -> Finished {
        _ = brokenPipesIgnored
        guard let executable = command.first else { throw DarkroomError(.processingFailed, "no program was named to run") }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(command.dropFirst())
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        // Nothing of the server's environment (keys, salts, credentials)
        // reaches a program that parses a stranger's bytes; only this
        // process's id, so that a child can tell whether it was orphaned
        // before it asked to die with its parent.
        process.environment = [ChildProcess.parentVariable: "\(getpid())"]
        do {
            try process.run()
        } catch {
            // Named by its program's name only: an answer shows no path of
            // the machine.
            throw DarkroomError(.processingFailed, "the drawing child (\(URL(fileURLWithPath: executable).lastPathComponent)) could not be started")
        }
        let state = KillState(process)
        // Watches the clock and the switch while this thread is in a read.
        let watch = DispatchSource.makeTimerSource(queue: .global())
        watch.schedule(deadline: .now(), repeating: .milliseconds(20))
        watch.setEventHandler {
            if killSwitch.isPulled || ContinuousClock.now >= deadline { state.kill() }
        }
        watch.resume()
        defer { watch.cancel() }
        // The input from another thread: the child may answer (or end)
        // before reading all of it.
        let writer = DispatchGroup()
        DispatchQueue.global().async(group: writer) {
            try? stdin.fileHandleForWriting.write(contentsOf: input)
            try? stdin.fileHandleForWriting.close()
        }
        var output = Data()
        var overflowed = false
        let reader = stdout.fileHandleForReading
        while let chunk = try? reader.read(upToCount: 1 << 16), !chunk.isEmpty {
            if output.count + chunk.count > maxOutput {
                overflowed = true
                state.kill()
                break
            }
            output.append(chunk)
        }
        process.waitUntilExit()
        writer.wait()
        try? reader.close()
        return Finished(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                        output: output, killed: state.killed, outputOverflowed: overflowed)
    }

    /// Kills the child once, and only while it runs: once Foundation has
    /// reaped it, its process id may already be another process's.
    private final class KillState: @unchecked Sendable {
        private let process: Process
        private let done = Locked(false)

        init(_ process: Process) {
            self.process = process
        }

        var killed: Bool { done.withLock { $0 } }

        func kill() {
            done.withLock { done in
                guard !done, process.isRunning else { return }
                done = true
                _ = Glibc.kill(process.processIdentifier, SIGKILL)
            }
        }
    }
}
