@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite struct PhotoListTests {
    @Test func readsTheSeedsXMLPropertyList() throws {
        let list = try PhotoList.parse(try Data(contentsOf: Corpus.root.appendingPathComponent("ClassicPhotos.plist")), origin: "ClassicPhotos.plist")
        #expect(list.count == 12)
        #expect(list.entries.map(\.name) == (SeedList.goodNames + SeedList.wrongNames).sorted())
        #expect(list.entries[0].url?.absoluteString == "http://127.0.0.1:8089/photos/Aqua.jpg")
        #expect(list.entries.allSatisfy { $0.problem == nil })
    }

    @Test func readsABinaryPropertyList() throws {
        let binary = try PropertyListSerialization.data(fromPropertyList: ["B": "https://example.com/b.jpg", "A": "https://example.com/a.jpg"], format: .binary, options: 0)
        #expect(binary.starts(with: Data("bplist".utf8)))
        let list = try PhotoList.parse(binary, origin: "list.plist")
        #expect(list.entries.map(\.name) == ["A", "B"])
    }

    /// A binary list whose top is a set (a byte of an array's marker
    /// changed) crashed Foundation's `PropertyListSerialization` as it
    /// bridged the set; read by the decoder, it is a list of the wrong shape.
    @Test func aBinaryListHoldingASetIsRefusedNotACrash() throws {
        let set = try Data(contentsOf: Corpus.packageRoot.appendingPathComponent("Tests/Fuzz/list/set-bplist-crash-9c99177d"))
        #expect(set.starts(with: Data("bplist".utf8)))
        #expect {
            try PhotoList.parse(set, origin: "set.plist")
        } throws: { error in
            (error as? DarkroomError)?.kind == .invalidList
        }
        // A list nested far deeper than any photo list is refused too.
        var deep: Any = "https://x.org/a.jpg"
        for _ in 0..<40 { deep = [deep] }
        let nested = try PropertyListSerialization.data(fromPropertyList: ["a": deep], format: .binary, options: 0)
        #expect(throws: DarkroomError.self) { try PhotoList.parse(nested, origin: "deep.plist") }
    }

    /// A binary list's containers refer to objects by number, so a few
    /// hundred bytes can hold a dictionary holding itself (the `list` fuzz
    /// target found one that ran for minutes) or a chain of arrays each
    /// holding the next twice (2^40 values unfolded). Both are refused at
    /// once, saying why, as is an object that runs past the file's end.
    @Test func binaryListsThatReferToThemselvesOrShareContainersAreRefusedAtOnce() throws {
        let found = try Data(contentsOf: Corpus.packageRoot.appendingPathComponent("Tests/Fuzz/list/self-reference-bplist-timeout-290c67db"))
        let started = ContinuousClock.now
        var reasons: [String] = []
        for data in [found, Self.binaryList(chainOfSharedArrays: 40), Self.binaryList(chainOfSharedArrays: 0, selfReferring: true)] {
            do {
                _ = try PhotoList.parse(data, origin: "hostile.plist")
                Issue.record("a hostile binary list was read")
            } catch {
                #expect(error.kind == .invalidList)
                reasons.append(error.reason)
            }
        }
        #expect(reasons.allSatisfy { $0.contains("is reached twice") }, "\(reasons)")
        #expect(ContinuousClock.now - started < .seconds(5))
        // A string that runs past the file's end made Foundation trap.
        let pastEnd = try Data(contentsOf: Corpus.packageRoot.appendingPathComponent("Tests/Fuzz/list/string-past-end-bplist-crash-c32fbaef"))
        #expect { try PhotoList.parse(pastEnd, origin: "x") } throws: { error in
            (error as? DarkroomError)?.reason.contains("object 4 that is not a known kind or runs past its objects") ?? false
        }
        // The same chain, unshared, is a list of the wrong shape, not refused as hostile.
        #expect { try PhotoList.parse(Self.binaryList(chainOfSharedArrays: 3, shared: false), origin: "x") } throws: { error in
            (error as? DarkroomError).map { !$0.reason.contains("reached twice") } ?? false
        }
    }

    /// A binary property list, written by hand: object 0 is an array
    /// holding object 1 (twice when `shared`), which holds object 2, and so
    /// on `depth` times, ending in a string; `selfReferring` makes object 0
    /// a dictionary whose value is itself.
    static func binaryList(chainOfSharedArrays depth: Int, shared: Bool = true, selfReferring: Bool = false) -> Data {
        var objects: [[UInt8]] = []
        if selfReferring {
            objects = [[0xD1, 1, 0], [0x51, 0x61]]
        } else {
            for level in 0..<depth {
                let next = UInt8(level + 1)
                objects.append(shared ? [0xA2, next, next] : [0xA1, next])
            }
            objects.append([0x51, 0x61])
        }
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [objects.count, 0, table] {
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        return Data(bytes)
    }

    @Test func readsTheAppListShapeAsAPropertyListAndAsJSON() throws {
        let records: [[String: Any]] = [
            ["name": "Zebra", "icon": "https://example.com/z.png", "download": 1200],
            ["name": "Apple", "icon": "https://example.com/a.png", "download": 5],
        ]
        // The binary form shares the key strings between records, as
        // writers do, and passes the check on shared containers.
        for data in [try PropertyListSerialization.data(fromPropertyList: records, format: .xml, options: 0),
                     try PropertyListSerialization.data(fromPropertyList: records, format: .binary, options: 0),
                     try JSONSerialization.data(withJSONObject: records)] {
            let list = try PhotoList.parse(data, origin: "apps")
            #expect(list.entries.map(\.name) == ["Zebra", "Apple"], "the file's order")
            #expect(list.entries[0].detail == "1200 downloads")
            #expect(list.entries[1].url?.absoluteString == "https://example.com/a.png")
        }
    }

    @Test func readsJSONObjectsAndArrays() throws {
        let object = try PhotoList.parse(Data(#"{"b": "https://x.org/b.jpg", "a": "http://x.org/a.jpg"}"#.utf8), origin: "o.json")
        #expect(object.entries.map(\.name) == ["a", "b"])
        let array = try PhotoList.parse(Data(#"[{"name": "second", "url": "https://x.org/2.jpg"}, {"name": "first", "url": "https://x.org/1.jpg"}]"#.utf8), origin: "a.json")
        #expect(array.entries.map(\.name) == ["second", "first"])
        #expect(array.entries.map(\.id) == [0, 1])
    }

    @Test func anEntryWithABadURLIsAFailedRowNotAFailedList() throws {
        let list = try PhotoList.parse(Data(#"{"ok": "https://x.org/a.jpg", "ftp": "ftp://x.org/a.jpg", "junk": "not a url", "file": "file:///etc/passwd"}"#.utf8), origin: "l.json")
        let problems = Dictionary(uniqueKeysWithValues: list.entries.map { ($0.name, $0.problem) })
        #expect(problems["ok"]! == nil)
        for name in ["ftp", "junk", "file"] {
            #expect(problems[name]??.contains("not a valid http, https or local URL") == true, "\(name)")
        }
    }

    @Test(arguments: [
        ("", "is empty"),
        ("{ this is not json", "neither a property list nor valid JSON"),
        ("<?xml version=\"1.0\"?><plist><dict><key>a</key>", "not a valid property list"),
        ("42", "top level"),
        (#"["https://x.org/a.jpg"]"#, "entry 1"),
        (#"[{"url": "https://x.org/a.jpg"}]"#, "entry 1: has no 'name'"),
        (#"[{"name": "a"}]"#, "entry 1 ('a'): has no 'url'"),
        (#"{"a": 12}"#, "key 'a'"),
    ])
    func malformedListsAndWrongShapesSayWhatAndWhere(text: String, words: String) {
        #expect {
            try PhotoList.parse(Data(text.utf8), origin: "bad.json")
        } throws: { error in
            guard let error = error as? DarkroomError else { return false }
            return error.kind == .invalidList && error.reason.contains("bad.json") && error.reason.contains(words)
        }
    }

    @Test func unreachableAndMissingListsFailClearly() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            for location in [origin.url("/no-such-list.plist").absoluteString, "http://127.0.0.1:9/list.plist", "/no/such/file.plist"] {
                do {
                    _ = try await PhotoList.load(from: location)
                    Issue.record("\(location) loaded")
                } catch let error as DarkroomError {
                    #expect(error.kind == .invalidList)
                    #expect(error.reason.contains(location))
                }
            }
        }
    }

    @Test func loadsAListOverHTTP() async throws {
        let origin = try await OriginServer.start(serving: Corpus.root)
        try await cleaningUp({ await origin.stop() }) { () async throws in
            let list = try await PhotoList.load(from: origin.url("/ClassicPhotos.plist").absoluteString)
            #expect(list.count == 12)
        }
    }

    @Test func shardsCoverTheListExactlyOnce() throws {
        let list = PhotoList(entries: (0..<100).map { PhotoList.Entry(id: $0, name: "photo \($0)", url: URL(string: "https://x.org/\($0).jpg")) })
        for count in [1, 2, 3, 7] {
            let shards = (1...count).map { list.shard($0, of: count) }
            let names = shards.flatMap { $0.entries.map(\.name) }
            #expect(names.count == 100 && Set(names).count == 100, "\(count) shards")
            #expect(list.shard(1, of: count) == shards[0], "the same split every time")
            // Roughly even: no shard gets under half its share.
            #expect(shards.allSatisfy { $0.count >= 100 / count / 2 }, "\(count) shards: \(shards.map(\.count))")
        }
        // Names and URLs that repeat a number (an even count of odd bytes)
        // still split.
        let paired = PhotoList(entries: (0..<40).map { PhotoList.Entry(id: $0, name: "photo \($0)", url: URL(string: "https://x.org/a.jpg?n=\($0)")) })
        #expect((1...2).allSatisfy { paired.shard($0, of: 2).count >= 10 })
    }
}
