import ArgumentParser
import CSandbox
import Darkroom
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The limits a drawing child sets on itself before it reads a byte: its
/// address space and CPU time, no network at all (a seccomp filter under
/// which `socket` fails, for this process and anything it starts), and
/// its death with the process that started it (a server killed outright
/// leaves no drawing behind).
/// The libraries it runs cannot be stopped from inside; the kernel bounds
/// what they can use and reach.
enum ChildLimits {
    static func apply(memory: Int, seconds: Int) throws {
        var address = rlimit(rlim_cur: rlim_t(memory), rlim_max: rlim_t(memory))
        var cpu = rlimit(rlim_cur: rlim_t(seconds), rlim_max: rlim_t(seconds + 1))
        guard darkroom_die_with_parent() == 0,
              isSanitized || setrlimit(Int32(RLIMIT_AS.rawValue), &address) == 0, setrlimit(Int32(RLIMIT_CPU.rawValue), &cpu) == 0,
              darkroom_refuse_sockets() == 0
        else {
            throw ExitCode(6)
        }
        // A parent that ended before the request to die with it was made
        // left this process to another: nothing waits for its drawing.
        if let parent = ProcessInfo.processInfo.environment[ChildProcess.parentVariable].flatMap(Int32.init), getppid() != parent {
            throw ExitCode(7)
        }
    }
}

extension ChildLimits {
    /// Built with the address or thread sanitizer (a test build): its
    /// runtime maps terabytes of shadow memory, which no address-space
    /// limit allows, so there the limit is left off. Release builds have
    /// neither runtime.
    static let isSanitized: Bool = {
        let handle = dlopen(nil, RTLD_NOW)
        defer { if let handle { dlclose(handle) } }
        return dlsym(handle, "__asan_init") != nil || dlsym(handle, "__tsan_init") != nil
    }()
}

/// `darkroom child-sandbox-check`: applies a drawing child's limits to
/// itself, then tries to open a socket, as a hostile file's library would
/// (hidden: for the tests and an operator's check). Exit 0 when the socket
/// was refused, 1 when one opened.
struct ChildSandboxCheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "child-sandbox-check",
        abstract: "Set a drawing child's limits, then try to open a socket (exit 0: refused).",
        shouldDisplay: false
    )

    func run() throws {
        try ChildLimits.apply(memory: 1 << 30, seconds: 5)
        let error = darkroom_try_socket()
        guard error != 0 else {
            print("a socket opened under the drawing child's limits")
            throw ExitCode(1)
        }
        print("socket refused: \(String(cString: strerror(error)))")
    }
}

/// The drawing children are this very program, run with a hidden command.
enum DrawingChild {
    /// This program's path, as the kernel knows it.
    static let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]

    /// SVG drawn by `darkroom render-svg`.
    static var svg: SVGDrawing { SVGDrawing(command: [executable, "render-svg"]) }

    /// HEIC and large AVIF answers written by `darkroom encode-image`.
    static var encoder: EncodingChild { EncodingChild(command: [executable, "encode-image"]) }
}
