public import Foundation

/// Files that an image server meets from strangers, made from the corpus
/// photos and the fixtures: each one either makes a correct image or fails
/// with its own clear error, through every front end.
public enum HostileCorpus {
    public enum Outcome: Sendable {
        /// Must make an image.
        case image
        /// Must fail, with a reason.
        case error
        /// Either, but cleanly (a damaged JPEG that libjpeg may or may not
        /// get something out of).
        case either
    }

    /// Writes the corpus into `folder`; returns each file's name and what
    /// it must come to.
    public static func write(to folder: URL) throws -> [(name: String, outcome: Outcome)] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [(String, Data, Outcome)] = []
        let photo = try Corpus.data("Storm.jpg")

        files.append(("empty.jpg", Data(), .error))
        files.append(("random.jpg", try Fixtures.data("random.bin"), .error))
        for percent in [1, 10, 50, 90, 99] {
            files.append(("truncated-\(percent).jpg", photo.prefix(photo.count * percent / 100), .either))
        }
        files.append(("corrupt-huffman.jpg", corruptingHuffmanTables(of: photo), .either))
        files.append(("junk-after-end.jpg", photo + Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), .image))
        files.append(("page.jpg", try Fixtures.data("page.html"), .error))
        files.append(("data.jpg", Data(#"{"error": "not found", "status": 404}"#.utf8), .error))
        files.append(("drawing.svg", try Fixtures.data("drawing.svg"), .error))
        files.append(("document.pdf", try Fixtures.data("document.pdf"), .error))
        files.append(("header-65500x65500.png", try Fixtures.data("huge-header.png"), .error))
        files.append(("frames-3000.gif", gif(frames: 3000), .image))
        files.append(("cmyk.jpg", try Fixtures.data("cmyk.jpg"), .image))
        files.append(("sixteen-bit.png", try Fixtures.data("sixteen-bit.png"), .image))
        files.append(("grey.jpg", try Fixtures.data("gray.jpg"), .image))
        files.append(("exif-rotated.jpg", try Fixtures.data("right-orientation.jpg"), .image))
        files.append(("alpha.png", try Fixtures.data("alpha.png"), .image))

        for (name, data, _) in files {
            try data.write(to: folder.appendingPathComponent(name))
        }
        return files.map { ($0.0, $0.2) }
    }

    /// The photo with the bytes of every Huffman table (DHT segment)
    /// scrambled, its lengths kept, so the file still parses as a JPEG.
    static func corruptingHuffmanTables(of jpeg: Data) -> Data {
        var bytes = [UInt8](jpeg)
        var i = 2
        while i + 4 < bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if marker == 0xDA { break }   // start of scan: the tables are behind
            if marker == 0xC4 {
                for j in (i + 5)..<min(i + 2 + length, bytes.count) { bytes[j] = bytes[j] &* 31 &+ 17 }
            }
            i += 2 + length
        }
        return Data(bytes)
    }

    /// A GIF of `frames` one-pixel frames: a frame bomb that is small on
    /// disk.
    static func gif(frames: Int) -> Data {
        var bytes: [UInt8] = Array("GIF89a".utf8) + [1, 0, 1, 0, 0x80, 0, 0] + [0, 0, 0, 255, 255, 255]
        bytes += [0x21, 0xFF, 0x0B] + Array("NETSCAPE2.0".utf8) + [3, 1, 0, 0, 0]
        for _ in 0..<frames {
            bytes += [0x21, 0xF9, 4, 0, 1, 0, 0, 0]           // graphic control: 10 ms
            bytes += [0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0]        // one pixel at 0,0
            bytes += [2, 2, 0x44, 0x01, 0]                    // LZW: colour 1
        }
        bytes.append(0x3B)
        return Data(bytes)
    }
}
