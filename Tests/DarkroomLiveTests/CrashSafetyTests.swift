import Darkroom
@testable import DarkroomCLI
import Foundation
import Testing
import TestSupport

/// The disk cache under a real crash: a writer process killed with SIGKILL
/// at different moments, then every entry checked.
@Suite struct CrashSafetyTests {
    @Test func aWriterKilledMidWriteNeverLeavesABadEntry() async throws {
        let binary = DarkroomProcess.product("darkroom-cache-writer")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the darkroom-cache-writer executable first")
        let folder = try Fixtures.temporaryFolder("darkroom-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        let entries = 30, size = 300_000

        for attempt in 0..<4 {
            let writer = Process()
            writer.executableURL = binary
            writer.arguments = [folder.path, "\(entries)", "\(size)"]
            writer.standardOutput = FileHandle.nullDevice
            try writer.run()
            // Once it is writing, let it go on for a while, killing it at a
            // different moment each time.
            let entriesFolder = folder.appendingPathComponent("v1")
            let started = await eventually(120) {
                let walker = FileManager.default.enumerator(atPath: entriesFolder.path)
                return (walker?.allObjects.count ?? 0) >= 4
            }
            try #require(started, "the writer wrote nothing in 120 s")
            try await Task.sleep(for: .milliseconds(20 + 37 * attempt))
            await DarkroomProcess.stop(writer, signal: SIGKILL)

            let cache = try DiskCache(configuration: .init(folder: folder))
            var whole = 0
            for i in 0..<entries {
                guard let entry = cache.entry(for: "entry-\(i)") else { continue }
                let round = Int(entry.metadata["round"] ?? "") ?? -1
                // A served entry is exactly what the writer wrote for it.
                #expect(entry.data == CacheWriterData.expected(i, round: round, size: size), "entry \(i) after kill \(attempt)")
                whole += 1
            }
            #expect(whole > 0, "the writer wrote something before it was killed")
        }
    }
}
