import Darkroom
@testable import DarkroomCLI
import Foundation
import Testing
import TestSupport

/// The disk cache under a real crash: a writer process killed with SIGKILL
/// at a different moment each time (`DARKROOM_CRASH_KILLS` times: 4 in
/// `make test`, 100 in `make crash-test`), then every file under an entry's
/// final name read byte by byte, without the cache's own reader (which
/// deletes what it finds damaged, so it would hide a partial file).
@Suite struct CrashSafetyTests {
    static let kills = ProcessInfo.processInfo.environment["DARKROOM_CRASH_KILLS"].flatMap(Int.init) ?? 4

    @Test func aWriterKilledMidWriteNeverLeavesABadEntry() async throws {
        let binary = DarkroomProcess.product("darkroom-cache-writer")
        try #require(FileManager.default.isExecutableFile(atPath: binary.path), "build the darkroom-cache-writer executable first")
        let folder = try Fixtures.temporaryFolder("darkroom-kill")
        defer { try? FileManager.default.removeItem(at: folder) }
        // Large entries: a write lasts long enough for the aim to land in it.
        let entries = 12, size = 2_000_000
        var interrupted = 0, whole = 0

        let writing = folder.appendingPathComponent("writing")
        for attempt in 0..<Self.kills {
            try? FileManager.default.removeItem(at: writing)
            let writer = Process()
            writer.executableURL = binary
            writer.arguments = [folder.path, "\(entries)", "\(size)"]
            writer.standardOutput = FileHandle.nullDevice
            writer.environment = TiedProcess.environment()
            try TiedProcess.run(writer)
            let entriesFolder = folder.appendingPathComponent("v1")
            let started = await eventually(120) { FileManager.default.fileExists(atPath: writing.path) }
            try #require(started, "the writer did not start writing in 120 s")
            // The first writer finishes one entry before its kill, so the
            // cache always has whole entries to check, however slowly a
            // busy machine writes (the entries stay for the later rounds).
            let oneWhole = await eventually(120) { !Fixtures.regularFiles(under: entriesFolder).isEmpty }
            try #require(oneWhole, "the writer wrote no whole entry in 120 s")
            // Once it is writing, let it go on for a while, killing it at a
            // different moment each time, and then inside a write: between
            // two writes (the directory's flush after a rename) it would
            // cut nothing.
            let temporary = folder.appendingPathComponent("tmp")
            try await Task.sleep(for: .milliseconds(20 + 37 * (attempt % 16)))
            // Watched and killed from a thread of its own: a poll that waits
            // for a turn on the busy cooperative pool sees a write that has
            // already ended.
            let pid = writer.processIdentifier
            try await onOwnThread {
                let deadline = ContinuousClock.now + .seconds(60)
                while Fixtures.regularFiles(under: temporary).isEmpty, ContinuousClock.now < deadline { usleep(200) }
                kill(pid, SIGKILL)
            }
            await DarkroomProcess.stop(writer, signal: SIGKILL)

            // A write cut short leaves its temporary file, never a partial
            // file under the final name.
            if !Fixtures.regularFiles(under: temporary).isEmpty { interrupted += 1 }
            try? FileManager.default.removeItem(at: temporary)
            let files = Fixtures.regularFiles(under: entriesFolder)
            whole += files.count
            for file in files {
                let bytes = try Data(contentsOf: file)
                let entry = try #require(RawEntry(bytes), "\(file.lastPathComponent) after kill \(attempt): not a whole entry (\(bytes.count) bytes)")
                let index = try #require(Int(entry.key.dropFirst("entry-".count)), "\(entry.key)")
                let round = try #require(entry.round, "\(entry.key): no round")
                #expect(entry.data == CacheWriterData.expected(index, round: round, size: size), "\(entry.key) after kill \(attempt)")
            }
        }
        #expect(whole > 0, "the writers wrote whole entries before they were killed")
        // Each kill is aimed inside a write: nearly all cut one (39 of 40
        // measured), at least half on the busiest machine.
        #expect(interrupted * 2 >= Self.kills, "\(interrupted) of \(Self.kills) kills interrupted a write")
        print("crash safety: \(interrupted) of \(Self.kills) kills interrupted a write")
    }

    /// A disk-cache file read by its documented layout ("DRKC", a version
    /// byte, a 4-byte big-endian header length, the JSON header, the data),
    /// and only if it is whole: exactly as long as its header says.
    struct RawEntry {
        var key: String
        var round: Int?
        var data: Data

        init?(_ file: Data) {
            let bytes = [UInt8](file)
            guard bytes.count >= 9, bytes.starts(with: Array("DRKC".utf8)) else { return nil }
            let headerLength = bytes[5..<9].reduce(0) { $0 << 8 | Int($1) }
            guard 9 + headerLength <= bytes.count,
                  let header = try? JSONSerialization.jsonObject(with: Data(bytes[9..<(9 + headerLength)])) as? [String: Any],
                  let key = header["key"] as? String, let length = header["length"] as? Int,
                  bytes.count == 9 + headerLength + length
            else { return nil }
            self.key = key
            round = (header["metadata"] as? [String: String])?["round"].flatMap { Int($0) }
            data = Data(bytes[(9 + headerLength)...])
        }
    }
}
