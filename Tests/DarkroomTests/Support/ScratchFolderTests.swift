import Foundation
import Testing
import TestSupport

/// The suite leaves nothing in the system's temporary folder: what tests
/// write goes in one folder per run, and a run that was killed before it
/// could remove its own folder has it removed by the next.
struct ScratchFolderTests {
    @Test func foldersOfTestsAreInsideTheRunsOwn() throws {
        let folder = try Fixtures.temporaryFolder("scratch")
        #expect(folder.deletingLastPathComponent().standardizedFileURL.path == (try ScratchFolder.url.standardizedFileURL.path))
        #expect(try ScratchFolder.url.lastPathComponent == "darkroom-test-run-\(getpid())")
    }

    @Test func aKilledRunsFolderIsRemovedAndALiveOnesKept() throws {
        let system = try Fixtures.temporaryFolder("system")
        // A process that has ended: its pid is free until reused.
        let ended = Process()
        ended.executableURL = URL(fileURLWithPath: "/bin/true")
        try ended.run()
        ended.waitUntilExit()
        let names = ["darkroom-test-run-\(ended.processIdentifier)", "darkroom-test-run-\(getppid())",
                     "darkroom-test-run-\(getpid())", "darkroom-test-run-x", "another-\(ended.processIdentifier)"]
        for name in names {
            try FileManager.default.createDirectory(at: system.appendingPathComponent(name + "/inside"), withIntermediateDirectories: true)
        }
        ScratchFolder.removeAbandoned(in: system)
        let left = try FileManager.default.contentsOfDirectory(atPath: system.path).sorted()
        #expect(left == names.dropFirst().sorted())
    }
}
