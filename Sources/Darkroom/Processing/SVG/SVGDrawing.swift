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
    /// (see ``SVGDocumentDrawing/arguments(firstResize:maxResultDimension:maxPixels:maxMemory:maxSeconds:)``).
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
        /// The drawing as an uncompressed PNG on standard output (0).
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

    /// The child's arguments after ``SVGDrawing/command``: the run's first
    /// resize (as JSON), which the drawing's scale meets, and its limits.
    package static func arguments(firstResize: Resize?, maxResultDimension: Int, maxPixels: Int, maxMemory: Int, maxSeconds: Int) -> [String] {
        let resize = firstResize.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
        return (resize.map { ["--resize", $0] } ?? []) + ["--max-result-dimension", "\(maxResultDimension)", "--max-pixels", "\(maxPixels)",
                                                         "--max-memory", "\(maxMemory)", "--max-seconds", "\(maxSeconds)"]
    }

    /// The scale to draw at: the first resize's, enlarging allowed, so
    /// that its box is met; then no more pixels than `maxPixels`.
    package static func scale(width: Int, height: Int, firstResize: Resize?, maxResultDimension: Int, maxPixels: Int) -> Double {
        guard width > 0, height > 0 else { return 1 }
        var scale = 1.0
        if var resize = firstResize, resize.gravity.isValid {
            resize.enlarge = true
            let geometry = resize.geometry(sourceWidth: width, sourceHeight: height, maxResultDimension: maxResultDimension)
            // Half a pixel more: librsvg's size rounds down, and the resize
            // then takes the drawing to its exact size.
            scale = max((Double(geometry.scaledWidth) + 0.5) / Double(width), (Double(geometry.scaledHeight) + 0.5) / Double(height))
            if !scale.isFinite || scale <= 0 { scale = 1 }
        }
        scale = Self.withinPixels(scale, width: width, height: height, maxPixels: maxPixels)
        // libvips' range; the pixel limit bounds what is drawn past its floor.
        return min(100_000, max(0.001, scale))
    }

    /// `scale`, lowered as far as a drawing of `width` x `height` at it
    /// needs to hold no more than `maxPixels`, its sides rounded up as a
    /// renderer may round them.
    package static func withinPixels(_ scale: Double, width: Int, height: Int, maxPixels: Int) -> Double {
        let (w, h, limit) = (Double(width), Double(height), Double(maxPixels))
        var scale = scale
        if w * h * scale * scale > limit { scale *= (limit / (w * h * scale * scale)).squareRoot() }
        // The square root meets the limit exactly; each side rounded up
        // may pass it by a row or a column.
        for _ in 0..<64 where (w * scale).rounded(.up) * (h * scale).rounded(.up) > limit {
            scale *= 1 - 1 / max(w * scale, h * scale, 1)
        }
        return scale
    }
}
