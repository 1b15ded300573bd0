public import Foundation

/// Tests whose strength depends on the machine (a cgroup the kernel
/// enforces, or the weaker check where none can be made) say which variant
/// ran, on standard error. Where the run asks for the guarantees in full
/// (`DARKROOM_REQUIRE_CGROUPS=1`, as CI sets it), the weaker variant fails
/// the test instead: a promise in docs/security.md never rests on a check
/// the machine quietly skipped.
public enum Variants {
    public static var cgroupsRequired: Bool {
        ProcessInfo.processInfo.environment["DARKROOM_REQUIRE_CGROUPS"] == "1"
    }

    public static func say(_ line: String) {
        FileHandle.standardError.write(Data("variant: \(line)\n".utf8))
    }

    /// The sanitizer the suite runs under (`make sanitize` sets
    /// DARKROOM_SANITIZER), if any.
    public static var sanitizer: String? {
        ProcessInfo.processInfo.environment["DARKROOM_SANITIZER"]
    }

    /// Whether resident memory means what the product holds: not under a
    /// sanitizer, which keeps freed memory in quarantine and maps terabytes
    /// of shadow (so a drawing child runs there without its address-space
    /// limit). Tests of memory bounds leave those checks out there, and say so.
    public static var measuresMemory: Bool {
        guard let sanitizer else { return true }
        say("under the \(sanitizer) sanitizer: resident-memory bounds and children's memory limits are not checked")
        return false
    }
}
