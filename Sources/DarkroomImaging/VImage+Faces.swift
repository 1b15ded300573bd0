internal import CFaces
internal import CVips

/// A face found in an image, in that image's pixels.
package struct FaceBox: Sendable, Equatable {
    package var left: Int
    package var top: Int
    package var width: Int
    package var height: Int
    /// The detector's margin: above 0 is a face, about 1 and more is sure.
    package var score: Double
}

extension VImage {
    /// The most faces one search reports.
    package static let maxFaces = 64

    /// The faces in this image, searched on a grey copy whose longer side is
    /// `side` pixels (scaled up or down to it), so the search costs the same
    /// for every image: it finds faces of about 80 pixels and more at that
    /// size. Boxes are in this image's pixels, those scoring above
    /// `threshold`, the surest first. Computes the image's pixels.
    package func faces(side: Int, threshold: Double, through pass: PixelPass) throws(VipsError) -> [FaceBox] {
        guard side > 0, width > 0, height > 0 else { return [] }
        let scale = Double(side) / Double(max(width, height))
        let scaled = scale == 1 ? self : try resized(horizontal: scale, vertical: scale, kernel: scale < 1 ? .lanczos3 : .linear)
        let grey = try scaled.srgb8().luma()
        let pixels = try grey.pixelBytes(pass)
        let (greyWidth, greyHeight) = (grey.width, grey.height)
        var found = [darkroom_face](repeating: darkroom_face(), count: Self.maxFaces)
        var message = [CChar](repeating: 0, count: 256)
        let count = pixels.withUnsafeBufferPointer { buffer in
            darkroom_detect_faces(buffer.baseAddress, Int32(greyWidth), Int32(greyHeight), threshold,
                                  &found, Int32(found.count), &message, Int32(message.count))
        }
        guard count >= 0 else {
            throw VipsError(operation: "face detection", message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        // Back to this image's pixels, kept inside it.
        let (xScale, yScale) = (Double(width) / Double(greyWidth), Double(height) / Double(greyHeight))
        return found.prefix(Int(count)).map { face in
            let left = min(width - 1, Int((Double(face.left) * xScale).rounded(.down)))
            let top = min(height - 1, Int((Double(face.top) * yScale).rounded(.down)))
            let right = min(width, Int((Double(face.left + face.width) * xScale).rounded(.up)))
            let bottom = min(height, Int((Double(face.top + face.height) * yScale).rounded(.up)))
            return FaceBox(left: left, top: top, width: max(1, right - left), height: max(1, bottom - top), score: face.score)
        }
    }
}

extension VImage {
    /// A copy in memory with each box outlined `thickness` pixels wide in
    /// `ink` (a value for each band).
    package func outlined(_ boxes: [(left: Int, top: Int, width: Int, height: Int)], thickness: Int, ink: [Double]) throws(VipsError) -> VImage {
        let flat = boxes.flatMap { [Int32($0.left), Int32($0.top), Int32($0.width), Int32($0.height)] }
        return try VImage.make("draw_rect") { out in
            darkroom_vips_draw_boxes(pointer, flat, Int32(boxes.count), Int32(thickness), ink, Int32(ink.count), out)
        }
    }
}
