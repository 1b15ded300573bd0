import DarkroomImaging
public import Foundation

/// PDF sources, drawn a page (or a few, stacked) at a time by libvips' PDF loader (poppler),
/// which libvips marks untrusted: off unless set, and then never in the
/// calling process. A child process (``command``, such as
/// `darkroom render-pdf-page`) reads the PDF on its standard input and
/// writes the page as PNG, under an address-space and CPU limit and the
/// run's deadline, so that a hostile PDF can only ever end its own child.
public struct PDFPages: Sendable, Hashable, Codable {
    /// The executable and its first arguments; the page, size and limits
    /// follow (see ``PDFPageDrawing/arguments(page:pages:plan:maxResultDimension:maxPixels:maxMemory:maxSeconds:background:)``).
    public var command: [String]
    /// The most memory the child may map, in bytes (1 GiB by default).
    public var maxMemory = 1 << 30
    /// Pages drawn on white, as imgproxy Pro draws them
    /// (`IMGPROXY_PDF_NO_BACKGROUND` turns it off); else transparent.
    public var background = true

    public init(command: [String], maxMemory: Int = 1 << 30, background: Bool = true) {
        self.command = command
        self.maxMemory = maxMemory
        self.background = background
    }

    /// Whether `data` starts as a PDF does.
    static func isPDF(_ data: Data) -> Bool {
        data.starts(with: Array("%PDF-".utf8))
    }
}

/// What the child process that draws a page does, in that process.
package enum PDFPageDrawing {
    /// How the child ends; its exit status.
    package enum Outcome: Sendable, Equatable {
        /// The page as an uncompressed PNG on standard output, after the
        /// scale it was drawn at (``VectorDrawingOutput``) (0).
        case page(Data)
        /// The page asked is past the last; the count on standard output (3).
        case pageOutOfRange(pages: Int)
        /// poppler could not read the document; its reason (4).
        case unreadable(String)

        package var status: Int32 {
            switch self {
            case .page: 0
            case .pageOutOfRange: 3
            case .unreadable: 4
            }
        }

        /// What the child writes on standard output.
        package var output: Data {
            switch self {
            case .page(let png): png
            case .pageOutOfRange(let pages): Data("\(pages)".utf8)
            case .unreadable(let reason): Data(reason.prefix(500).utf8)
            }
        }
    }

    /// The child's arguments after ``PDFPages/command``: the page, the
    /// plan of the drawing's scale (as JSON), and the limits.
    package static func arguments(page: Int, pages: Int = 1, plan: VectorPlan?, maxResultDimension: Int, maxPixels: Int, maxMemory: Int,
                                 maxSeconds: Int, background: Bool) -> [String] {
        ["--page", "\(page)", "--pages", "\(pages)"] + (VectorDrawingOutput.argument(plan).map { ["--plan", $0] } ?? [])
            + ["--max-result-dimension", "\(maxResultDimension)", "--max-pixels", "\(maxPixels)", "--max-memory", "\(maxMemory)",
               "--max-seconds", "\(maxSeconds)"] + (background ? [] : ["--no-background"])
    }

    /// The scale to draw at (``VectorPlan/drawingScale(of:width:height:maxResultDimension:maxPixels:ceiling:)``;
    /// 1 is 72 pixels an inch), at most 100: poppler's own bound on a page's scale.
    package static func scale(width: Int, height: Int, plan: VectorPlan?, maxResultDimension: Int, maxPixels: Int) -> Double {
        VectorPlan.drawingScale(of: plan, width: width, height: height, maxResultDimension: maxResultDimension, maxPixels: maxPixels,
                                ceiling: 100)
    }
}
