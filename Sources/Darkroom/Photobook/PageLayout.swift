/// Where things go on a page, in pixels and in points.
package struct PageLayout: Sendable {
    let page: (width: Int, height: Int)
    /// The photo's box: the page less margins and the caption band.
    let imageArea: (width: Int, height: Int)
    let marginPixels: Int
    let captionPixels: Int
    let pointsPerPixel: Double

    var pageWidthPoints: Double { Double(page.width) * pointsPerPixel }
    var pageHeightPoints: Double { Double(page.height) * pointsPerPixel }

    package init(_ request: PhotobookRequest) throws(DarkroomError) {
        // Checked before any arithmetic: a margin of 1e300 or an infinite dpi
        // would trap when turned into pixels.
        guard request.dpi.isFinite, (10...1200).contains(request.dpi) else {
            throw .invalidOption("dpi \(request.dpi) is outside 10...1200")
        }
        guard request.margin.isFinite, (0...1000).contains(request.margin) else {
            throw .invalidOption("margin \(request.margin) mm is outside 0...1000")
        }
        page = request.page.pixels(dpi: request.dpi)
        pointsPerPixel = 72 / request.dpi
        marginPixels = Int((request.margin / 25.4 * request.dpi).rounded())
        captionPixels = request.captions ? Int((9 / 25.4 * request.dpi).rounded()) : 0
        let width = page.width - 2 * marginPixels, height = page.height - 2 * marginPixels - captionPixels
        guard request.margin >= 0, width >= 16, height >= 16 else {
            throw .invalidOption("a margin of \(request.margin) mm leaves no room for the photo on the page")
        }
        imageArea = (width, height)
    }

    /// The rectangle, in points, for an image of this many pixels: centred in
    /// the photo's box.
    func rectangle(width: Int, height: Int) -> (x: Double, y: Double, w: Double, h: Double) {
        let x = Double(marginPixels + (imageArea.width - width) / 2)
        let y = Double(marginPixels + (imageArea.height - height) / 2)
        return (x * pointsPerPixel, y * pointsPerPixel, Double(width) * pointsPerPixel, Double(height) * pointsPerPixel)
    }

    /// The caption's baseline, in points.
    var captionBaseline: Double {
        Double(page.height - marginPixels - captionPixels / 3) * pointsPerPixel
    }
}
