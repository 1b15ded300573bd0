package import Darkroom
import DarkroomImaging
package import Foundation

/// Many frames in one drawing (``VideoSprite``), made in the child that
/// reads the video: each frame decoded, scaled into its cell and kept at
/// the cell's size, so the child holds one frame at full size at a time.
extension VideoFrameDrawing {
    /// The sprite or stacked animation frames of `video` as an uncompressed
    /// PNG (an animation's frame count in ``VideoSprite/frameCountField``). Call it only
    /// in a process of its own, with its limits set.
    package static func drawSheet(_ video: Data, sprite: VideoSprite, second: Double, keyframes: Bool, maxPixels: Int,
                                  probeBytes: Int) -> Outcome {
        if let problem = sprite.problem { return .unreadable(problem) }
        let bytes = [UInt8](video)
        let meta: VideoFrames.Meta
        switch VideoFrames.frame(bytes, second: second, keyframes: keyframes, maxPixels: maxPixels, probeBytes: probeBytes, decode: false) {
        case .success((let facts, _)): meta = facts
        case .failure(let failure): return outcome(failure)
        }
        let place = sprite.placement(frameWidth: meta.width, frameHeight: meta.height)
        let cellPixels = MemoryCost.product(place.cellWidth, place.cellHeight)
        guard MemoryCost.product(cellPixels, sprite.frameCount) <= maxPixels, MemoryCost.product(place.scaledWidth, place.scaledHeight) <= maxPixels else {
            return .tooLarge("\(sprite.frameCount) frames of \(place.cellWidth) x \(place.cellHeight) are more than \(maxPixels) pixels")
        }
        let taken = sprite.times(start: second, duration: meta.duration).compactMap { $0 }
        var sheet = FrameSheet(cellWidth: place.cellWidth, cellHeight: place.cellHeight)
        var failure: Outcome?
        let read = VideoFrames.frames(bytes, seconds: taken, keyframes: keyframes, maxPixels: maxPixels, probeBytes: probeBytes) { _, pixels in
            // Each frame at its own placement: a stream may change size.
            let own = sprite.placement(frameWidth: pixels.width, frameHeight: pixels.height)
            guard MemoryCost.product(own.scaledWidth, own.scaledHeight) <= maxPixels else {
                failure = .tooLarge("a frame of \(pixels.width) x \(pixels.height) scaled to \(own.scaledWidth) x \(own.scaledHeight) is more than \(maxPixels) pixels")
                return false
            }
            do throws(VipsError) {
                try sheet.add(pixels, scaledWidth: own.scaledWidth, scaledHeight: own.scaledHeight, left: own.left, top: own.top)
                return true
            } catch {
                failure = .unreadable(error.message)
                return false
            }
        }
        if case .failure(let reason) = read { return failure ?? outcome(reason) }
        do {
            let count = sprite.trim ? sheet.cells.count : sprite.frameCount
            switch sprite.layout {
            case .tiles(let columns, _):
                // Trimmed: one row as long as the frames, else whole rows.
                return .frame(Data(try sheet.png(count: count, across: min(columns, count))))
            case .animation:
                return .frame(Data(try sheet.png(count: count, across: 1, field: (VideoSprite.frameCountField, "\(count)"))))
            }
        } catch {
            return .unreadable(error.message)
        }
    }

    private static func outcome(_ failure: VideoFrames.Failure) -> Outcome {
        switch failure {
        case .noVideo(let reason): .noVideo(reason)
        case .tooLarge(let reason): .tooLarge(reason)
        case .unreadable(let reason): .unreadable(reason)
        }
    }
}
