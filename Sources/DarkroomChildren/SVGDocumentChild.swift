package import Darkroom
import DarkroomImaging
package import Foundation

/// What the child process that draws an SVG runs (`darkroom render-svg`):
/// linked by the executable only, never by the library.
extension SVGDocumentDrawing {
    /// Draws `svg` as an uncompressed PNG, after the scale it is drawn at:
    /// the plan's, which meets its first resize's box (enlarging allowed,
    /// as a vector is drawn at the size wanted), then no more than
    /// `maxPixels`. Call it only in a process of its own, with its limits
    /// set: it runs librsvg.
    package static func draw(_ svg: Data, plan: VectorPlan?, maxResultDimension: Int, maxPixels: Int) -> Outcome {
        do {
            try VipsRuntime.start()
            VipsRuntime.allowSVG()
            return try withRawBytes(of: svg) { raw throws(VipsError) -> Outcome in
                let header = try VImage.loadSVG(raw, scale: 1)
                let scale = Self.scale(width: header.width, height: header.height, plan: plan,
                                       maxResultDimension: maxResultDimension, maxPixels: maxPixels)
                let image = scale == 1 ? header : try VImage.loadSVG(raw, scale: scale)
                // Past the scale's floor, the size is known before a pixel is drawn.
                let pixels = image.width.multipliedReportingOverflow(by: image.height)
                if pixels.overflow || pixels.partialValue > maxPixels { return .tooLarge(width: image.width, height: image.height) }
                // In the child: its kernel limits bound it, the switch is never pulled.
                let png = Data(try VipsKillSwitch().armed(image) { pass throws(VipsError) in try image.storedPNG(pass) })
                return .drawing(VectorDrawingOutput.written(png: png, scale: scale))
            }
        } catch {
            return .unreadable(error.message)
        }
    }
}
