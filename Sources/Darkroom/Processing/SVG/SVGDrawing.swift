import DarkroomImaging
public import Foundation

/// SVG sources drawn into pixels by libvips' SVG loader (librsvg, with
/// gdk-pixbuf for the images a document embeds), which libvips marks
/// untrusted and which cannot be stopped inside a drawing: never in the
/// calling process. A child process (``command``, such as
/// `darkroom render-svg`) reads the sanitised document on its standard
/// input and writes the drawing as PNG, under an address-space and CPU
/// limit, with no socket, and killed at the run's deadline or when its
/// client leaves, so that a hostile document (a filter that would run for
/// days, an embedded image that decodes to gigabytes) can only end its own
/// child.
public struct SVGDrawing: Sendable, Hashable, Codable {
    /// The executable and its first arguments; the scale and limits follow
    /// (see ``SVGDocumentDrawing/arguments(plan:maxResultDimension:maxPixels:maxMemory:maxSeconds:)``).
    public var command: [String]
    /// The most memory the child may map, in bytes (1 GiB by default).
    public var maxMemory = 1 << 30

    public init(command: [String], maxMemory: Int = 1 << 30) {
        self.command = command
        self.maxMemory = maxMemory
    }
}

/// What the child process that draws an SVG does, in that process.
package enum SVGDocumentDrawing {
    /// How the child ends; its exit status.
    package enum Outcome: Sendable, Equatable {
        /// The drawing as an uncompressed PNG on standard output, after the
        /// scale it was drawn at (``VectorDrawingOutput``) (0).
        case drawing(Data)
        /// librsvg could not read the document; its reason (4).
        case unreadable(String)
        /// The drawing would pass the pixel limit even at the smallest
        /// scale; its size at that scale (5).
        case tooLarge(width: Int, height: Int)

        package var status: Int32 {
            switch self {
            case .drawing: 0
            case .unreadable: 4
            case .tooLarge: 5
            }
        }

        /// What the child writes on standard output.
        package var output: Data {
            switch self {
            case .drawing(let png): png
            case .unreadable(let reason): Data(reason.prefix(500).utf8)
            case .tooLarge(let width, let height): Data("\(width)x\(height)".utf8)
            }
        }
    }

    /// The child's arguments after ``SVGDrawing/command``: the plan of the
    /// drawing's scale (as JSON), and the limits.
    package static func arguments(plan: VectorPlan?, maxResultDimension: Int, maxPixels: Int, maxMemory: Int, maxSeconds: Int) -> [String] {
        (VectorDrawingOutput.argument(plan).map { ["--plan", $0] } ?? [])
            + ["--max-result-dimension", "\(maxResultDimension)", "--max-pixels", "\(maxPixels)", "--max-memory", "\(maxMemory)", "--max-seconds", "\(maxSeconds)"]
    }

    /// The scale to draw at (``VectorPlan/drawingScale(of:width:height:maxResultDimension:maxPixels:ceiling:)``),
    /// at most libvips' own bound on a scale.
    package static func scale(width: Int, height: Int, plan: VectorPlan?, maxResultDimension: Int, maxPixels: Int) -> Double {
        VectorPlan.drawingScale(of: plan, width: width, height: height, maxResultDimension: maxResultDimension, maxPixels: maxPixels,
                                ceiling: 100_000)
    }
}
