import Darkroom
import Foundation
import TestSupport

// darkroom-cache-writer FOLDER ENTRIES SIZE: writes disk-cache entries, in
// rounds, until it is killed. The crash-safety test kills it mid-write and
// then checks that every entry in the folder is whole or absent; entry `i`
// holds CacheWriterData.expected(i, round:, size:) under the key `entry-i`.
let arguments = CommandLine.arguments
guard arguments.count == 4, let entries = Int(arguments[2]), let size = Int(arguments[3]), entries > 0, size > 0 else {
    FileHandle.standardError.write(Data("usage: darkroom-cache-writer FOLDER ENTRIES SIZE\n".utf8))
    exit(2)
}
let cache = try DiskCache(configuration: .init(folder: URL(fileURLWithPath: arguments[1]), sizeLimit: Int.max))
var round = 0
while true {
    for i in 0..<entries {
        let data = CacheWriterData.expected(i, round: round % 2, size: size)
        try cache.store(DiskCacheEntry(data: data, metadata: ["round": "\(round % 2)"]), for: "entry-\(i)")
    }
    round += 1
}
