public import Foundation
import DarkroomImaging

/// The one folder under the system's temporary folder that a test process
/// writes into: every `Fixtures.temporaryFolder`, and the temporary files
/// of the programs tests start (SeaweedFS, Chromium). It is removed when
/// the process exits, so a test that keeps a folder for the whole run (the
/// hostile shapes, a certificate) or a store that leaves sockets and logs
/// behind still leaves nothing once the suite ends; the folders of runs
/// that were killed are removed by the next run.
public enum ScratchFolder {
    static let prefix = "darkroom-test-run-"
    private static let made = Locked<URL?>(nil)

    /// The folder, made by the first caller.
    public static var url: URL {
        get throws {
            try made.withLock { url in
                if let url { return url }
                let system = FileManager.default.temporaryDirectory
                removeAbandoned(in: system)
                let folder = system.appendingPathComponent("\(prefix)\(getpid())")
                try? FileManager.default.removeItem(at: folder)  // a dead run with the same pid
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                atexit { ScratchFolder.removeAtExit() }
                url = folder
                return folder
            }
        }
    }

    /// The environment for a program a test starts (built by the test, as
    /// ``TiedProcess/environment(_:)``), with the program's temporary files
    /// put in `folder`.
    public static func environment(temporaryFiles folder: URL) -> [String: String] {
        TiedProcess.environment(["TMPDIR": folder.path])
    }

    private static func removeAtExit() {
        guard let folder = made.withLock({ $0 }) else { return }
        try? FileManager.default.removeItem(at: folder)
    }

    /// Removes the folders of earlier runs whose process is gone.
    public static func removeAbandoned(in system: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: system.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) != 0 && errno == ESRCH {
                try? FileManager.default.removeItem(at: system.appendingPathComponent(name))
            }
        }
    }
}
