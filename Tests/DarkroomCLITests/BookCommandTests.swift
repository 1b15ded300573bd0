import Foundation
import Testing
import TestSupport

@Suite struct BookCommandTests {
    @Test func exitCodes() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book-cli")
        defer { try? FileManager.default.removeItem(at: folder) }
        let photos = Corpus.photos.prefix(3).map(\.path)
        let ok = try await DarkroomProcess.run(["book"] + photos + ["-o", folder.appendingPathComponent("a.pdf").path, "--filter", "sepia"])
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(ok.stdout.contains("3 pages"))
        let skipped = try await DarkroomProcess.run(["book"] + photos + [Fixtures.url("truncated.jpg").path, "-o", folder.appendingPathComponent("b.pdf").path, "--skip-failed"])
        #expect(skipped.status == 1)
        #expect(skipped.stderr.contains("skipped truncated"))
        #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("b.pdf").path))
        let usage = try await DarkroomProcess.run(["book"] + photos + ["-o", folder.appendingPathComponent("c.pdf").path, "--page", "A5"])
        #expect(usage.status == 2)
    }

    @Test func interruptingLeavesNoFile() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-book-int")
        defer { try? FileManager.default.removeItem(at: folder) }
        let inputs = Array(repeating: Corpus.photos.map(\.path), count: 8).flatMap { $0 }
        // A cache of its own, empty: pages are cached like any image, and
        // pages from a warm cache would finish the book before the interrupt.
        let cache = folder.appendingPathComponent("cache").path
        let book = try DarkroomProcess.start(["book"] + inputs + ["-o", folder.appendingPathComponent("big.pdf").path, "--dpi", "300", "--workers", "1",
                                              "--cache-dir", cache],
                                             log: folder.appendingPathComponent("log.txt"))
        // Interrupted once it is writing: the book's temporary file is there.
        // The watch runs on a thread of its own and sends the signal itself:
        // a poll on the test process's shared threads can be held up for
        // seconds by a neighbour's work, long enough for the book to finish.
        func partial() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0 != "log.txt" && $0 != "cache" }
        }
        let pid = book.processIdentifier
        let folderPath = folder.path
        let writing = try await onOwnThread { () -> Bool in
            let deadline = ContinuousClock.now + .seconds(300)
            while ContinuousClock.now < deadline {
                let names = ((try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? []).filter { $0.hasSuffix(".tmp") }
                if !names.isEmpty {
                    kill(pid, SIGINT)
                    return true
                }
                usleep(2_000)
            }
            return false
        }
        #expect(writing, "the book was being written when interrupted")
        let status = await DarkroomProcess.stop(book, signal: SIGINT, seconds: 120)
        #expect(status == 1, "Ctrl-C cancels")
        let left = partial()
        #expect(left.isEmpty, "no partial file: \(left)")
        let log = try String(contentsOf: folder.appendingPathComponent("log.txt"), encoding: .utf8)
        #expect(log.contains("cancelled"), "\(log)")
    }
}
