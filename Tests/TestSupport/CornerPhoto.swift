package import DarkroomImaging
public import Foundation

/// A photo whose four corners are four colours (red top-left, green
/// top-right, blue bottom-left, yellow bottom-right, grey between), stored
/// turned as each EXIF orientation says and tagged with it: shown upright,
/// every one of the eight is the same picture, so a test can tell all
/// eight apart by where each colour lands.
public enum CornerPhoto {
    public static let width = 240, height = 160
    static let colours: [[UInt8]] = [[230, 20, 20], [20, 200, 40], [20, 40, 230], [240, 220, 20]]

    /// The upright picture's pixels.
    static func upright() -> RawPixels {
        var bytes = [UInt8](repeating: 128, count: width * height * 3)
        let w = width / 3, h = height / 3
        for y in 0..<height {
            for x in 0..<width {
                let corner: Int? = switch (x < w, x >= width - w, y < h, y >= height - h) {
                case (true, _, true, _): 0
                case (_, true, true, _): 1
                case (true, _, _, true): 2
                case (_, true, _, true): 3
                default: nil
                }
                if let corner { bytes.replaceSubrange((y * width + x) * 3..<(y * width + x) * 3 + 3, with: colours[corner]) }
            }
        }
        return RawPixels(width: width, height: height, bands: 3, bytes: bytes)
    }

    /// Where the stored pixel at (x, y) comes from in the upright picture,
    /// for a stored image `sw` x `sh` that shows upright by `orientation`.
    static func uprightPoint(storedX x: Int, y: Int, sw: Int, sh: Int, orientation: Int) -> (Int, Int) {
        switch orientation {
        case 2: (sw - 1 - x, y)
        case 3: (sw - 1 - x, sh - 1 - y)
        case 4: (x, sh - 1 - y)
        case 5: (y, x)
        case 6: (sh - 1 - y, x)
        case 7: (sh - 1 - y, sw - 1 - x)
        case 8: (y, sw - 1 - x)
        default: (x, y)
        }
    }

    /// The JPEG stored for `orientation`, tagged with it.
    public static func jpeg(orientation: Int) throws -> Data {
        let picture = upright()
        let swaps = orientation >= 5
        let (sw, sh) = swaps ? (height, width) : (width, height)
        var stored = [UInt8](repeating: 0, count: sw * sh * 3)
        for y in 0..<sh {
            for x in 0..<sw {
                let (ux, uy) = uprightPoint(storedX: x, y: y, sw: sw, sh: sh, orientation: orientation)
                stored.replaceSubrange((y * sw + x) * 3..<(y * sw + x) * 3 + 3, with: picture.pixel(x: ux, y: uy))
            }
        }
        let jpeg = try RawPixels(width: sw, height: sh, bands: 3, bytes: stored).encoded(.jpeg(quality: 95, progressive: false))
        return EXIFOrientation.jpeg(Data(jpeg), orientation: orientation)
    }

    /// Whether an answer (JPEG, PNG...) shows the picture upright: each
    /// corner's colour where it belongs, within JPEG's error. nil when it
    /// does, else what is wrong.
    public static func problem(in image: Data) -> String? {
        guard let pixels = try? RawPixels.decode([UInt8](image), loader: image.starts(with: [0x89, 0x50]) ? .png : .jpeg) else {
            return "not an image"
        }
        return problem(in: pixels)
    }

    package static func problem(in pixels: RawPixels) -> String? {
        guard pixels.bands >= 3 else { return "\(pixels.bands) bands" }
        let (w, h) = (pixels.width, pixels.height)
        let points = [(w / 10, h / 10), (w - 1 - w / 10, h / 10), (w / 10, h - 1 - h / 10), (w - 1 - w / 10, h - 1 - h / 10)]
        for (corner, (x, y)) in points.enumerated() {
            let seen = Array(pixels.pixel(x: x, y: y).prefix(3))
            let distance = zip(seen, colours[corner]).map { abs(Int($0) - Int($1)) }.max() ?? 255
            if distance > 40 { return "corner \(corner) at (\(x), \(y)) is \(seen), not \(colours[corner])" }
        }
        return nil
    }
}
