@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct DiskCacheTests {
    func withCache(sizeLimit: Int = 1 << 30, _ body: (DiskCache, URL) throws -> Void) throws {
        let folder = try Fixtures.temporaryFolder("darkroom-disk")
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(try DiskCache(configuration: .init(folder: folder, sizeLimit: sizeLimit)), folder)
    }

    @Test func theDefaultFolderFollowsXDGThenHOME() {
        #expect(DiskCache.defaultFolder(environment: ["XDG_CACHE_HOME": "/x/cache", "HOME": "/home/a"]).path == "/x/cache/darkroom")
        #expect(DiskCache.defaultFolder(environment: ["HOME": "/home/a"]).path == "/home/a/.cache/darkroom")
        // A relative XDG path is ignored, as the XDG specification says.
        #expect(DiskCache.defaultFolder(environment: ["XDG_CACHE_HOME": "cache", "HOME": "/home/b"]).path == "/home/b/.cache/darkroom")
        #expect(DiskCache.defaultFolder(environment: [:]).path.hasSuffix("/.cache/darkroom"))
    }

    @Test func storesAndReadsBackWithMetadata() throws {
        try withCache { cache, _ in
            let entry = DiskCacheEntry(data: Data("hello".utf8), contentType: "image/jpeg", etag: "\"1\"", lastModified: "Tue", metadata: ["w": "3"])
            try cache.store(entry, for: "https://example.com/a.jpg")
            let read = try #require(cache.entry(for: "https://example.com/a.jpg"))
            #expect(read.data == entry.data)
            #expect(read.etag == "\"1\"" && read.contentType == "image/jpeg" && read.metadata == ["w": "3"])
            #expect(cache.entry(for: "https://example.com/b.jpg") == nil)
        }
    }

    /// The two-letter folders are made once; one removed since is made
    /// again, and so is the temporary folder, rather than the store failing.
    @Test func aFolderRemovedUnderTheCacheIsMadeAgain() throws {
        try withCache { cache, folder in
            try cache.store(DiskCacheEntry(data: Data("one".utf8)), for: "k")
            try FileManager.default.removeItem(at: cache.fileURL(for: "k").deletingLastPathComponent())
            try FileManager.default.removeItem(at: folder.appendingPathComponent("tmp"))
            try cache.store(DiskCacheEntry(data: Data("two".utf8)), for: "k")
            #expect(cache.entry(for: "k")?.data == Data("two".utf8))
            let left = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("tmp").path)
            #expect(left.isEmpty, "no temporary file is left: \(left)")
        }
    }

    /// A file that cannot be written leaves no temporary file and says why.
    @Test func aFailedWriteSaysWhereAndLeavesNothing() throws {
        let folder = try Fixtures.temporaryFolder("darkroom-atomic")
        defer { try? FileManager.default.removeItem(at: folder) }
        let target = folder.appendingPathComponent("no-such-folder/answer.jpg").path
        let temporary = folder.appendingPathComponent("answer.tmp")
        #expect {
            try AtomicFile.write([Data("a".utf8), Data("b".utf8)], to: target, through: temporary, durable: false)
        } throws: { error in
            (error as? CocoaError)?.code == .fileNoSuchFile && (error as? CocoaError)?.filePath?.contains("no-such-folder") == true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).isEmpty)
        try AtomicFile.write([Data("a".utf8), Data("b".utf8)], to: folder.appendingPathComponent("answer.jpg").path,
                             through: temporary, durable: true)
        #expect(try Data(contentsOf: folder.appendingPathComponent("answer.jpg")) == Data("ab".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["answer.jpg"])
    }

    @Test func fileNamesAreHashesWhateverTheKey() throws {
        try withCache { cache, folder in
            try cache.store(DiskCacheEntry(data: Data([1])), for: "../../../../etc/passwd?x=/y\\z")
            let url = cache.fileURL(for: "../../../../etc/passwd?x=/y\\z")
            #expect(url.path.hasPrefix(folder.path))
            #expect(url.lastPathComponent.count == 64)
            #expect(url.lastPathComponent.allSatisfy { $0.isHexDigit })
        }
    }

    @Test func anEntryUnderAnotherKeysNameIsNotServed() throws {
        try withCache { cache, _ in
            try cache.store(DiskCacheEntry(data: Data("a".utf8)), for: "a")
            // As if two keys' hashes collided: b's file holds a's entry.
            try FileManager.default.createDirectory(at: cache.fileURL(for: "b").deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: cache.fileURL(for: "a"), to: cache.fileURL(for: "b"))
            #expect(cache.entry(for: "b") == nil)
            #expect(!FileManager.default.fileExists(atPath: cache.fileURL(for: "b").path), "the bad entry was deleted")
            #expect(cache.entry(for: "a") != nil)
        }
    }

    @Test(arguments: [0, 4, 9, 40, 100])
    func aTruncatedEntryIsAMissAndIsDeleted(keep: Int) throws {
        try withCache { cache, _ in
            try cache.store(DiskCacheEntry(data: Data(repeating: 7, count: 500)), for: "k")
            let url = cache.fileURL(for: "k")
            try Data(try Data(contentsOf: url).prefix(keep)).write(to: url)
            #expect(cache.entry(for: "k") == nil)
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func evictsTheLeastRecentlyUsedOverTheLimit() throws {
        try withCache(sizeLimit: 10_000) { cache, _ in
            for i in 0..<5 {
                try cache.store(DiskCacheEntry(data: Data(repeating: UInt8(i), count: 2_000)), for: "k\(i)")
                Thread.sleep(forTimeInterval: 0.01)
                _ = cache.entry(for: "k0")   // k0 stays in use
            }
            // Five entries of ~2.3 KB are over 10 KB: the oldest unused go first.
            #expect(cache.statistics.totalCost <= 10_000)
            #expect(cache.entry(for: "k0") != nil)
            #expect(cache.entry(for: "k1") == nil)
            #expect(cache.entry(for: "k4") != nil)
        }
    }

    @Test func survivesAReopen() throws {
        try withCache { cache, folder in
            try cache.store(DiskCacheEntry(data: Data("kept".utf8)), for: "k")
            let reopened = try DiskCache(configuration: .init(folder: folder))
            #expect(reopened.entry(for: "k")?.data == Data("kept".utf8))
            #expect(reopened.statistics.count == 1)
            try reopened.removeAll()
            #expect(reopened.entry(for: "k") == nil)
        }
    }

    @Test func twoCachesOnOneFolderNeverCorruptAnEntry() async throws {
        let folder = try Fixtures.temporaryFolder("darkroom-shared")
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = try DiskCache(configuration: .init(folder: folder)), b = try DiskCache(configuration: .init(folder: folder))
        let versions = [Data(repeating: 0xAA, count: 150_000), Data(repeating: 0xBB, count: 90_000)]
        // Two writers (as two processes would) race on the same keys.
        await withTaskGroup(of: Void.self) { group in
            for (cache, data) in [(a, versions[0]), (b, versions[1])] {
                group.addTask {
                    for round in 0..<20 {
                        for key in 0..<5 { try? cache.store(DiskCacheEntry(data: data), for: "k\(key)") }
                        _ = cache.entry(for: "k\(round % 5)")
                    }
                }
            }
        }
        for key in 0..<5 {
            let entry = try #require(a.entry(for: "k\(key)"))
            #expect(versions.contains(entry.data), "k\(key) is one writer's whole entry")
        }
    }
}
