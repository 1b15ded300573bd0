import CSandbox
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
        // Nothing of the server's environment (keys, salts, credentials)
        // reaches a program that parses a stranger's bytes; only this
        // process's id, so that a child can tell whether it was orphaned
        // before it asked to die with its parent. Nothing of its
        // descriptors either: the spawn closes every one past standard
        // error (the listening socket, clients' connections, other
        // children's pipes), which seccomp's refusal of `socket` alone
        // would leave usable.
        var toChild: Int32 = -1, fromChild: Int32 = -1
        let pid = withCStrings(command) { argv in
            withCStrings(["\(ChildProcess.parentVariable)=\(getpid())"] + sanitizerSettings) { envp in
                darkroom_spawn_child(executable, argv, envp, &toChild, &fromChild)
            }
        }
        guard pid > 0 else {
            // Named by its program's name only: an answer shows no path of
            // the machine.
            throw DarkroomError(.processingFailed, "the drawing child (\(URL(fileURLWithPath: executable).lastPathComponent)) could not be started")
        }
        let state = KillState(pid)
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
        let stdin = FileHandle(fileDescriptor: toChild, closeOnDealloc: true)
        DispatchQueue.global().async(group: writer) {
            try? stdin.write(contentsOf: input)
            try? stdin.close()
        }
        var output = Data()
        var overflowed = false
        let reader = FileHandle(fileDescriptor: fromChild, closeOnDealloc: true)
        while let chunk = try? reader.read(upToCount: 1 << 16), !chunk.isEmpty {
            if output.count + chunk.count > maxOutput {
                overflowed = true
                state.kill()
                break
            }
            output.append(chunk)
        }
        let waited = state.reap()
        writer.wait()
        try? reader.close()
        // As wait(2)'s macros read it: the low seven bits a signal's number.
        let signal = waited & 0x7F
        let signalled = signal != 0 && signal != 0x7F
        return Finished(status: signalled ? signal : (waited >> 8) & 0xFF, signalled: signalled,
                        output: output, killed: state.killed, outputOverflowed: overflowed)
    }

    /// A sanitized build's settings (ASAN_OPTIONS and its kin), which its
    /// children need as it does; nothing else of the environment.
    private static let sanitizerSettings: [String] = ProcessInfo.processInfo.environment
        .filter { name, _ in ["ASAN_", "UBSAN_", "TSAN_", "LSAN_"].contains { name.hasPrefix($0) } }
        .map { "\($0.key)=\($0.value)" }.sorted()

    /// `strings` as a C array of C strings, ended by a null, for `body`.
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }

    /// Kills the child once, and only until it is reaped: after that its
    /// process id may already be another process's.
    private final class KillState: Sendable {
        private struct State {
            var killed = false
            var reaped = false
        }
        private let pid: pid_t
        private let state = Locked(State())

        init(_ pid: pid_t) {
            self.pid = pid
        }

        var killed: Bool { state.withLock { $0.killed } }

        func kill() {
            state.withLock { state in
                guard !state.killed, !state.reaped else { return }
                state.killed = true
                _ = Glibc.kill(pid, SIGKILL)
            }
        }

        /// Waits for the child to end; its wait status. It is waited for
        /// first without being reaped, so that no kill can reach its
        /// process id once that id is free again.
        func reap() -> Int32 {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1, errno == EINTR {}
            state.withLock { $0.reaped = true }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1, errno == EINTR {}
            return status
        }
    }
}
