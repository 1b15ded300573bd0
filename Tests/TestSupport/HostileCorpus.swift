public import Foundation

/// Files that an image server meets from strangers, made from the corpus
/// photos and the fixtures: each one either makes a correct image or fails
/// with its own clear error, through every front end.
public enum HostileCorpus {
    /// What one file must come to: each has exactly one.
    public enum Outcome: Sendable, Equatable {
        /// An image, the source being this size upright.
        case image(width: Int, height: Int)
        /// A drawing of this size, drawn at the size the box asks, larger
        /// too (as imgproxy draws vectors).
        case vector(width: Int, height: Int)
        /// A failure whose reason contains these words.
        case error(String)
        /// An animation over the pixel limit in all its frames: refused
        /// where it would stay an animation, its first frame (this size)
        /// where the output is a still image.
        case animationOverTheLimit(width: Int, height: Int)

        /// What a front end makes of it: `keepsAnimation` where the output
        /// keeps the source's format (`process` and `fetch`), not where a
        /// still image is asked for (a book's page, the server's `@jpg`).
        public func made(keepsAnimation: Bool) -> Outcome {
            switch self {
            case .animationOverTheLimit(let width, let height):
                keepsAnimation ? .error("in each of 100 frames (the first 100 of 1000), over the limit") : .image(width: width, height: height)
            default: self
            }
        }

        /// The size a fit into the box makes, never enlarged; `nil` for a
        /// failure.
        public func fitted(width boxWidth: Int, height boxHeight: Int) -> (width: Int, height: Int)? {
            let (width, height, enlarges): (Int, Int, Bool)
            switch self {
            case .image(let w, let h): (width, height, enlarges) = (w, h, false)
            case .vector(let w, let h): (width, height, enlarges) = (w, h, true)
            default: return nil
            }
            let scale = min(enlarges ? .infinity : 1, Double(boxWidth) / Double(width), Double(boxHeight) / Double(height))
            return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
        }
    }

    /// Writes the corpus into `folder`; returns each file's name and what
    /// it must come to.
    public static func write(to folder: URL) async throws -> [(name: String, outcome: Outcome)] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var files: [(String, Data, Outcome)] = []
        let photo = try Corpus.data("Storm.jpg")   // 1920 x 1280

        files.append(("empty.jpg", Data(), .error("empty")))
        files.append(("random.jpg", try Fixtures.data("random.bin"), .error("not an image")))
        // Cut in its header: no image at all.
        files.append(("truncated-1.jpg", photo.prefix(photo.count / 100), .error("could not be read")))
        // Cut in its pixels: a picture with grey rows would be a wrong answer.
        for percent in [10, 50, 90, 99] {
            files.append(("truncated-\(percent).jpg", photo.prefix(photo.count * percent / 100), .error("damaged or truncated")))
        }
        files.append(("corrupt-huffman.jpg", corruptingHuffmanTables(of: photo), .error("JPEG image could not be read")))
        files.append(("junk-after-end.jpg", photo + Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }), .image(width: 1920, height: 1280)))
        files.append(("page.jpg", try Fixtures.data("page.html"), .error("HTML")))
        files.append(("data.jpg", Data(#"{"error": "not found", "status": 404}"#.utf8), .error("JSON")))
        // SVG, drawn where the front end turns librsvg on (the tests do).
        files.append(("drawing.svg", try Fixtures.data("drawing.svg"), .vector(width: 100, height: 100)))
        for (name, document, outcome) in hostileSVGs {
            files.append((name, Data(document.utf8), outcome))
        }
        files.append(("document.pdf", try Fixtures.data("document.pdf"), .error("PDF")))
        files.append(("header-100000x100000.png", try Fixtures.data("huge-header.png"), .error("100000 x 100000 pixels, over the limit")))
        files.append(("frames-3000.gif", gif(frames: 3000), .image(width: 1, height: 1)))
        // 1,000 frames of 2000 x 2000: 4 gigapixels in a few MB.
        files.append(("frame-bomb.gif", try Data(contentsOf: try await HostileShapes.url("frame-bomb.gif")), .animationOverTheLimit(width: 2000, height: 2000)))
        files.append(("cmyk.jpg", try Fixtures.data("cmyk.jpg"), .image(width: 240, height: 160)))
        files.append(("sixteen-bit.png", try Fixtures.data("sixteen-bit.png"), .image(width: 240, height: 160)))
        files.append(("grey.jpg", try Fixtures.data("gray.jpg"), .image(width: 240, height: 160)))
        // Stored 160 x 240, orientation 6: upright it is 240 x 160.
        files.append(("exif-rotated.jpg", try Fixtures.data("right-orientation.jpg"), .image(width: 240, height: 160)))
        files.append(("alpha.png", try Fixtures.data("alpha.png"), .image(width: 240, height: 160)))

        for (name, data, _) in files {
            try data.write(to: folder.appendingPathComponent(name))
        }
        return files.map { ($0.0, $0.2) }
    }

    /// SVG documents made to hurt a renderer or read what they should not:
    /// each is refused by the sanitiser before any parser expands or
    /// fetches anything, or drawn without what it hid.
    static let hostileSVGs: [(String, String, Outcome)] = {
        let open = #"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80">"#
        let laughs = (1...9).map { #"<!ENTITY lol\#($0) "\#(String(repeating: "&lol\($0 - 1);", count: 10))">"# }.joined()
        return [
            ("svg-billion-laughs.svg", #"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY lol0 "lol">\#(laughs)]>"# + open + "<text>&lol9;</text></svg>",
             .error("DTD")),
            ("svg-xxe-file.svg", #"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>"# + open + "<text>&x;</text></svg>",
             .error("DTD")),
            ("svg-xxe-loopback.svg", #"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "http://127.0.0.1:9/secret">]>"# + open + "<text>&x;</text></svg>",
             .error("DTD")),
            ("svg-huge.svg", #"<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000" viewBox="0 0 10 10"><rect width="10" height="10" fill="red"/></svg>"#,
             .vector(width: 1_000_000, height: 1_000_000)),
            ("svg-too-huge.svg", #"<svg xmlns="http://www.w3.org/2000/svg" width="100000000" height="100000000"><rect width="10" height="10"/></svg>"#,
             .error("at most 10000000 a side")),
            ("svg-deep.svg", open + String(repeating: "<g>", count: 5000) + String(repeating: "</g>", count: 5000) + "</svg>",
             .error("deeper than 256")),
            ("svg-script.svg", #"<svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" onload="alert(1)"><script>alert(2)</script><rect width="120" height="80" fill="blue" onclick="alert(3)"/><image href="file:///etc/passwd"/></svg>"#,
             .vector(width: 120, height: 80)),
        ]
    }()

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
