package import DarkroomImaging
public import Foundation

/// A PDF's pages as pixels, rendered by poppler's pdftoppm (Debian's
/// poppler-utils), as a reader would see them.
public enum PDFPages {
    /// Every page at `dpi` (a page of W x H points comes out W x H x dpi / 72 pixels).
    package static func render(_ pdf: URL, dpi: Double) async throws -> [RawPixels] {
        let folder = try Fixtures.temporaryFolder("darkroom-pdf-pages")
        defer { try? FileManager.default.removeItem(at: folder) }
        let prefix = folder.appendingPathComponent("page").path
        let run = try await runTool("/usr/bin/pdftoppm", ["-r", "\(dpi)", "-png", pdf.path, prefix])
        guard run.status == 0 else { throw PDFPagesError(description: "pdftoppm: \(run.output)") }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".png") }.sorted()
        return try await onOwnThread {
            try files.map { try RawPixels.decode([UInt8](try Data(contentsOf: folder.appendingPathComponent($0))), loader: .png) }
        }
    }
}

struct PDFPagesError: Error, CustomStringConvertible {
    let description: String
}
