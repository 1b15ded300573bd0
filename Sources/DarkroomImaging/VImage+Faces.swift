#if Faces
internal import CFaces
#endif
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

    /// The side of the tiles a large search is made in: dlib's detector
    /// cannot be stopped inside a call, so a copy larger than this is
    /// searched a tile at a time, `stop` asked between tiles.
    static let faceTile = 1024
    /// Tiles overlap by this much, so that a face up to this size at the
    /// search's scale lies whole in one; larger faces are found by a
    /// search of the whole image at ``faceTile``.
    static let faceTileOverlap = 288

    /// The faces in this image, searched on a grey copy whose longer side is
    /// `side` pixels (scaled up or down to it), so the search costs the same
    /// for every image: it finds faces of about 80 pixels and more at that
    /// size. Boxes are in this image's pixels, those scoring above
    /// `threshold`, the surest first. Computes the image's pixels. A copy
    /// larger than ``faceTile`` is searched in overlapping tiles, and once
    /// whole at that size for the faces larger than the overlap; `stop` is
    /// asked before each call, and a true answer ends the search with an error.
    package func faces(side: Int, threshold: Double, through pass: PixelPass,
                       stop: () -> Bool = { false }) throws(VipsError) -> [FaceBox] {
        #if Faces
        guard side > 0, width > 0, height > 0 else { return [] }
        var boxes: [(left: Double, top: Double, right: Double, bottom: Double, score: Double)] = []
        // Searches `pixels` (a grey copy `w` x `h` of the whole image),
        // in the region given, adding what it finds in this image's pixels.
        func search(_ pixels: [UInt8], w: Int, h: Int, x: Int, y: Int, tileWidth: Int, tileHeight: Int) throws(VipsError) {
            if stop() { throw VipsError(operation: "face detection", message: "stopped") }
            var tile = [UInt8](repeating: 0, count: tileWidth * tileHeight)
            for row in 0..<tileHeight {
                tile.replaceSubrange(row * tileWidth..<(row + 1) * tileWidth, with: pixels[(y + row) * w + x..<(y + row) * w + x + tileWidth])
            }
            var found = [darkroom_face](repeating: darkroom_face(), count: Self.maxFaces)
            var message = [CChar](repeating: 0, count: 256)
            let count = tile.withUnsafeBufferPointer { buffer in
                darkroom_detect_faces(buffer.baseAddress, Int32(tileWidth), Int32(tileHeight), threshold,
                                      &found, Int32(found.count), &message, Int32(message.count))
            }
            guard count >= 0 else {
                throw VipsError(operation: "face detection", message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            }
            let (xScale, yScale) = (Double(width) / Double(w), Double(height) / Double(h))
            for face in found.prefix(Int(count)) {
                boxes.append((Double(x + Int(face.left)) * xScale, Double(y + Int(face.top)) * yScale,
                              Double(x + Int(face.left + face.width)) * xScale, Double(y + Int(face.top + face.height)) * yScale, face.score))
            }
        }
        func grey(at longer: Int) throws(VipsError) -> (pixels: [UInt8], width: Int, height: Int) {
            let scale = Double(longer) / Double(max(width, height))
            let scaled = scale == 1 ? self : try resized(horizontal: scale, vertical: scale, kernel: scale < 1 ? .lanczos3 : .linear)
            let grey = try scaled.srgb8().luma()
            return (try grey.pixelBytes(pass), grey.width, grey.height)
        }
        // Never more than twice the image's own size: a face smaller than
        // 40 of its pixels has nothing to find, and a small image would
        // cost a whole search (never less than the whole pass, though).
        let copy = try grey(at: min(side, max(Self.faceTile, 2 * max(width, height))))
        if max(copy.width, copy.height) <= Self.faceTile + Self.faceTileOverlap {
            try search(copy.pixels, w: copy.width, h: copy.height, x: 0, y: 0, tileWidth: copy.width, tileHeight: copy.height)
        } else {
            let step = Self.faceTile - Self.faceTileOverlap
            func starts(_ length: Int) -> [Int] {
                guard length > Self.faceTile else { return [0] }
                return Array(stride(from: 0, to: length - Self.faceTile, by: step)) + [length - Self.faceTile]
            }
            for y in starts(copy.height) {
                for x in starts(copy.width) {
                    try search(copy.pixels, w: copy.width, h: copy.height, x: x, y: y,
                               tileWidth: min(Self.faceTile, copy.width), tileHeight: min(Self.faceTile, copy.height))
                }
            }
            let whole = try grey(at: Self.faceTile)
            try search(whole.pixels, w: whole.width, h: whole.height, x: 0, y: 0, tileWidth: whole.width, tileHeight: whole.height)
        }
        // One box for each face: tiles overlap, and the whole search finds
        // the large ones again. The surest of boxes that share a centre stays.
        var kept: [(left: Double, top: Double, right: Double, bottom: Double, score: Double)] = []
        for box in boxes.sorted(by: { $0.score > $1.score }) where kept.count < Self.maxFaces {
            let (cx, cy) = ((box.left + box.right) / 2, (box.top + box.bottom) / 2)
            let duplicate = kept.contains { k in
                let (kx, ky) = ((k.left + k.right) / 2, (k.top + k.bottom) / 2)
                return (k.left...k.right).contains(cx) && (k.top...k.bottom).contains(cy) || (box.left...box.right).contains(kx) && (box.top...box.bottom).contains(ky)
            }
            if !duplicate { kept.append(box) }
        }
        return kept.map { box in
            let left = min(width - 1, Int(box.left.rounded(.down)))
            let top = min(height - 1, Int(box.top.rounded(.down)))
            let right = min(width, Int(box.right.rounded(.up)))
            let bottom = min(height, Int(box.bottom.rounded(.up)))
            return FaceBox(left: left, top: top, width: max(1, right - left), height: max(1, bottom - top), score: box.score)
        }
        #else
        throw VipsError(operation: "face detection", message: Self.noFaceDetection)
        #endif
    }

    /// Whether this build detects faces (the package's `Faces` trait).
    #if Faces
    package static let hasFaceDetection = true
    #else
    package static let hasFaceDetection = false
    #endif

    package static let noFaceDetection = "face detection is not in this build of Darkroom (built without its Faces trait)"
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
