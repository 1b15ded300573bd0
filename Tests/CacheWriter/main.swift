import Darkroom
import Foundation
import TestSupport

// darkroom-cache-writer FOLDER ENTRIES SIZE: writes disk-cache entries, in
// rounds, until it is killed; FOLDER/writing appears when it starts to. The crash-safety test kills it mid-write and
// then checks that every entry in the folder is whole or absent; entry `i`
// holds CacheWriterData.expected(i, round:, size:) under the key `entry-i`.
let arguments = CommandLine.arguments
guard arguments.count == 4, let entries = Int(arguments[2]), let size = Int(arguments[3]), entries > 0, size > 0 else {
    FileHandle.standardError.write(Data("usage: darkroom-cache-writer FOLDER ENTRIES SIZE\n".utf8))
    exit(2)
}
// Durable writes: each file flushed to the disk before its rename, so that
// the writer is in the middle of a write nearly all the time.
let cache = try DiskCache(configuration: .init(folder: URL(fileURLWithPath: arguments[1]), sizeLimit: Int.max, durableWrites: true))
// Made once, before the first write: the loop below does nothing but
// write, so a kill at any moment most likely lands in the middle of one.
let data = (0..<2).map { round in (0..<entries).map { CacheWriterData.expected($0, round: round, size: size) } }
// Tells the test the writing begins.
FileManager.default.createFile(atPath: URL(fileURLWithPath: arguments[1]).appendingPathComponent("writing").path, contents: nil)
var round = 0
while true {
    for i in 0..<entries {
        try cache.store(DiskCacheEntry(data: data[round % 2][i], metadata: ["round": "\(round % 2)"]), for: "entry-\(i)")
    }
    round += 1
}
