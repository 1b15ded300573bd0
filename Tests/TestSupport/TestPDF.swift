public import Foundation

/// PDF documents written byte by byte, for the PDF tests: ordinary pages
/// and hostile ones (a page tree of thousands, a vast page, an image
/// stream that inflates to gigabytes, actions that ask to run things).
public enum TestPDF {
    /// A page: its size in points and its content stream.
    public struct Page: Sendable {
        public var width: Int
        public var height: Int
        public var content: String
        /// Named XObjects the content draws (`/Im0 Do`): object bodies.
        public var images: [String: Data] = [:]

        public init(width: Int = 200, height: Int = 100, content: String, images: [String: Data] = [:]) {
            self.width = width
            self.height = height
            self.content = content
            self.images = images
        }

        /// The whole page filled with one colour (0...1 each).
        public static func filled(_ red: Double, _ green: Double, _ blue: Double, width: Int = 200, height: Int = 100) -> Page {
            Page(width: width, height: height, content: "\(red) \(green) \(blue) rg 0 0 \(width) \(height) re f")
        }
    }

    /// The document, with a cross-reference table at the right offsets;
    /// `catalogExtra` goes into the catalog (`/OpenAction ...`).
    public static func document(_ pages: [Page], catalogExtra: String = "") -> Data {
        var objects: [Data] = []
        func add(_ body: Data) -> Int {
            objects.append(body)
            return objects.count
        }
        func add(_ text: String) -> Int { add(Data(text.utf8)) }
        let catalog = add("")  // filled in below
        let tree = add("")
        var kids: [Int] = []
        for page in pages {
            var resources: [String] = []
            for (name, body) in page.images.sorted(by: { $0.key < $1.key }) {
                resources.append("/\(name) \(add(body)) 0 R")
            }
            let content = add(stream(Data(page.content.utf8), dictionary: ""))
            kids.append(add("<< /Type /Page /Parent \(tree) 0 R /MediaBox [0 0 \(page.width) \(page.height)] /Contents \(content) 0 R /Resources << /XObject << \(resources.joined(separator: " ")) >> >> >>"))
        }
        objects[catalog - 1] = Data("<< /Type /Catalog /Pages \(tree) 0 R \(catalogExtra) >>".utf8)
        objects[tree - 1] = Data("<< /Type /Pages /Kids [\(kids.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(kids.count) >>".utf8)
        return raw(objects, root: catalog)
    }

    /// Objects 1, 2, ... with these bodies, `root` the catalog.
    public static func raw(_ objects: [Data], root: Int) -> Data {
        var out = Data("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(out.count)
            out.append(Data("\(index + 1) 0 obj\n".utf8))
            out.append(body)
            out.append(Data("\nendobj\n".utf8))
        }
        let xref = out.count
        out.append(Data("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8))
        for offset in offsets { out.append(Data(String(format: "%010d 00000 n \n", offset).utf8)) }
        out.append(Data("trailer\n<< /Size \(objects.count + 1) /Root \(root) 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8))
        return out
    }

    /// A stream object's body.
    public static func stream(_ bytes: Data, dictionary: String) -> Data {
        var body = Data("<< \(dictionary) /Length \(bytes.count) >>\nstream\n".utf8)
        body.append(bytes)
        body.append(Data("\nendstream".utf8))
        return body
    }

    /// One page drawing a form that draws the next form `fanout` times,
    /// `depth` deep: fanout^depth rectangles from a few hundred bytes.
    public static func formBomb(depth: Int, fanout: Int) -> Data {
        // 1 catalog, 2 pages, 3 page, 4 its content, 5... the forms.
        var objects = [Data("<< /Type /Catalog /Pages 2 0 R >>".utf8), Data("<< /Type /Pages /Kids [3 0 R] /Count 1 >>".utf8),
                       Data("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /XObject << /F 5 0 R >> >> >>".utf8),
                       stream(Data("/F Do".utf8), dictionary: "")]
        for level in 0..<depth {
            let number = 5 + level
            let last = level == depth - 1
            let content = last ? "0 0 1 rg 0 0 1 1 re f" : Array(repeating: "/F Do", count: fanout).joined(separator: " ")
            let resources = last ? "" : "/Resources << /XObject << /F \(number + 1) 0 R >> >>"
            objects.append(stream(Data(content.utf8), dictionary: "/Type /XObject /Subtype /Form /BBox [0 0 200 200] \(resources)"))
        }
        return raw(objects, root: 1)
    }

    /// An RGB image XObject `width` x `height` whose Flate stream inflates
    /// to zeros: a few megabytes that a reader must decompress to gigabytes.
    public static func inflatingImage(width: Int, height: Int) throws -> Data {
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", "import sys, zlib; c = zlib.compressobj(9); n = \(width * height * 3); chunk = bytes(1 << 20)\n"
            + "out = []\nwhile n > 0:\n    k = min(n, len(chunk)); out.append(c.compress(chunk[:k])); n -= k\nout.append(c.flush()); sys.stdout.buffer.write(b''.join(out))"]
        let pipe = Pipe()
        python.standardOutput = pipe
        python.environment = TiedProcess.environment()
        try TiedProcess.run(python)
        let compressed = pipe.fileHandleForReading.readDataToEndOfFile()
        python.waitUntilExit()
        return stream(compressed, dictionary: "/Type /XObject /Subtype /Image /Width \(width) /Height \(height) /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode")
    }
}
