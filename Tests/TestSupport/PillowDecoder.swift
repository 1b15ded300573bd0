public import Foundation

/// Pillow (from PyPI, in the project's `.venv`, installed by
/// `scripts/bootstrap`) as an independent reader of the files Darkroom
/// writes itself, BMP and ICO, so a test does not check a writer with a
/// reader of the same hand.
public enum PillowDecoder {
    public static let script = Corpus.packageRoot.appendingPathComponent("Tests/Tools/pillow_decode.py")

    public struct Decoded: Decodable, Sendable {
        /// Pillow's name of the format it recognised ("BMP", "ICO", ...).
        public let format: String
        public let width: Int
        public let height: Int
        /// "L", "RGB", "RGBA", ...
        public let mode: String
        /// The values at each point asked, in order.
        public let pixels: [[Int]]
    }

    /// Decodes `data`, reading the pixels at `points`.
    public static func decode(_ data: Data, points: [(x: Int, y: Int)] = []) throws -> Decoded {
        let python = OTLPReceiver.python
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(python.path) is missing: run scripts/bootstrap"])
        }
        let folder = try Fixtures.temporaryFolder("pillow")
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("image")
        try data.write(to: file)
        let process = Process()
        process.executableURL = python
        process.arguments = [script.path, file.path] + points.map { "\($0.x),\($0.y)" }
        let output = Pipe()
        let errorsFile = folder.appendingPathComponent("errors")
        _ = FileManager.default.createFile(atPath: errorsFile.path, contents: nil)
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorsFile)
        process.environment = TiedProcess.environment()
        try TiedProcess.run(process)
        let answer = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let problem = (try? Data(contentsOf: errorsFile)) ?? Data()
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "Pillow could not read the file: \(String(decoding: problem, as: UTF8.self))"])
        }
        return try JSONDecoder().decode(Decoded.self, from: answer)
    }
}
