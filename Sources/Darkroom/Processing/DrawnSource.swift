import Foundation

/// A kind of source drawn to pixels by a child process before the usual
/// steps run on it: SVG, PDF, video. Each kind's folder (`SVG/`, `PDF/`,
/// `Video/`) holds its settings, its run and the arguments its child takes;
/// what the child runs is in `DarkroomChildren`, which only the executable
/// links. Every other source is a raster (`Raster/`), read in process.
protocol DrawnSource {
    /// The format the sniff gives this kind's sources.
    static var format: ImageFormat { get }
    /// The answer to such a source.
    static func run(_ run: ProcessingRun) throws(DarkroomError) -> ProcessedImage
    /// What `/info` says of it.
    static func inspect(_ run: ProcessingRun, includeGPS: Bool, asked: InfoOptions) throws(DarkroomError) -> ImageInfo
}

extension ProcessingRun {
    /// The drawn kinds, asked in turn by the run and by `/info`.
    static let drawnSources: [any DrawnSource.Type] = [SVGSource.self, PDFSource.self, VideoSource.self]

    static func drawnSource(for format: ImageFormat) -> (any DrawnSource.Type)? {
        drawnSources.first { $0.format == format }
    }
}
