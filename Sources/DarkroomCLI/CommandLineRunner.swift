import Darkroom
import ArgumentParser
import Foundation

/// Parses and runs a `darkroom` command line, and says what exit code it
/// ends with: 0 for success, 1 when some of the work failed, 2 for a usage
/// error (argument-parser's own code for that is 64; Darkroom's tools use 2,
/// as most command-line tools do).
public enum CommandLineRunner {
    /// Process-wide settings, before any thread starts: fewer malloc arenas,
    /// so a long-running server's memory comes back after bursts, and a
    /// photo's buffers kept on the heap for the next request.
    ///
    /// (Running Swift concurrency on NIO's event loops instead of its own
    /// pool was measured too: a little faster for 2 clients, a fifth slower
    /// for 16. It is not done.)
    public static func prepareProcess() {
        Allocator.limitArenas(to: 2)
        Allocator.mapLargeBlocks(over: 32 << 20)
        Allocator.keepFreeTop(upTo: 8 << 20)
    }

    public static func run(_ arguments: [String]) async -> Int32 {
        do {
            var command = try DarkroomCommand.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            return 0
        } catch {
            let code = DarkroomCommand.exitCode(for: error)
            let message = DarkroomCommand.fullMessage(for: error)
            if code == .success {
                // --help and --version print to standard output.
                if !message.isEmpty { print(message) }
                return 0
            }
            if !message.isEmpty {
                FileHandle.standardError.write(Data((message + "\n").utf8))
            }
            return code == .validationFailure ? 2 : code.rawValue
        }
    }
}
