public import Foundation

/// Many frames of a video in one answer, as imgproxy Pro makes them: a
/// sprite of tiles in a grid (`video_thumbnail_tile`, `vtt`) or an
/// animation (`video_thumbnail_animation`, `vta`). Each frame is resized
/// to fit the tile (or to fill it about the focus point), optionally
/// extended to the tile's size on black; the frames start at the video's
/// thumbnail second and are `step` seconds apart (a negative step: the
/// video's duration shared among the frames).
public struct VideoSprite: Sendable, Hashable, Codable {
    public enum Layout: Sendable, Hashable, Codable {
        /// Tiles left to right, then top to bottom.
        case tiles(columns: Int, rows: Int)
        /// Frames shown `delay` milliseconds each, looping for ever.
        case animation(delay: Int, frames: Int)
    }

    public var layout: Layout
    /// Seconds between frames; below 0: the duration over the frame count.
    public var step: Double
    /// Each frame's box; 0 on a side: as the frame's aspect gives it (both
    /// 0: the frame's own size).
    public var width: Int
    public var height: Int
    /// Each frame extended to the box, centred on black.
    public var extend = false
    /// Frames past the video's end left out (else black).
    public var trim = false
    /// Each frame cut to fill the box about (`focusX`, `focusY`), from 0
    /// (left, top) to 1, rather than fitted inside it.
    public var fill = false
    public var focusX = 0.5
    public var focusY = 0.5

    public init(layout: Layout, step: Double, width: Int, height: Int, extend: Bool = false, trim: Bool = false,
                fill: Bool = false, focusX: Double = 0.5, focusY: Double = 0.5) {
        (self.layout, self.step, self.width, self.height) = (layout, step, width, height)
        (self.extend, self.trim, self.fill, self.focusX, self.focusY) = (extend, trim, fill, focusX, focusY)
    }

    /// The field an animation's frame count travels in from the child,
    /// through the PNG of its stacked frames.
    package static let frameCountField = "png-comment-0-darkroom-frames"

    /// The most frames one answer may take: each is a seek and a decode.
    public static let maxFrames = 1_000
    public static let sides = 0...10_000
    public static let steps = -86_400.0...86_400.0
    public static let delays = 0...600_000
    public static let focus = 0.0...1.0

    /// How many frames the layout holds.
    public var frameCount: Int {
        switch layout {
        // Saturating: a layout built in code may name any numbers.
        case .tiles(let columns, let rows): columns.multipliedReportingOverflow(by: rows).overflow ? .max : columns * rows
        case .animation(_, let frames): frames
        }
    }

    /// Why these values cannot make a sprite, or nil when they can.
    public var problem: String? {
        switch layout {
        case .tiles(let columns, let rows) where columns < 1 || rows < 1:
            return "a sprite needs at least one column and one row"
        case .animation(let delay, let frames) where frames < 1 || !Self.delays.contains(delay):
            return frames < 1 ? "an animation needs at least one frame" : "the delay \(delay) ms is outside \(Self.delays)"
        default: break
        }
        if step == 0 || !Self.steps.contains(step) { return "the step \(step) s is 0 or outside \(Self.steps)" }
        if frameCount > Self.maxFrames { return "\(frameCount) frames is more than the \(Self.maxFrames) one answer may take" }
        if !Self.sides.contains(width) || !Self.sides.contains(height) { return "a frame's box \(width) x \(height) is outside \(Self.sides)" }
        if !Self.focus.contains(focusX) || !Self.focus.contains(focusY) { return "the focus point is outside 0...1" }
        return nil
    }

    /// The time of each frame, from `start`, for a video of `duration`
    /// seconds (0: unknown); nil for a frame past the end, which is left
    /// out (`trim`) or black. The first frame is always taken.
    public func times(start: Double, duration: Double) -> [Double?] {
        let count = frameCount
        let step = self.step < 0 ? (duration > 0 ? duration / Double(count) : 1) : self.step
        return (0..<count).map { index in
            let time = start + Double(index) * step
            return index > 0 && duration > 0 && time > duration ? nil : time
        }
    }

    /// Where a frame goes in its cell: scaled to `scaledWidth` x
    /// `scaledHeight`, then placed at (`left`, `top`) in a cell of
    /// `cellWidth` x `cellHeight` on black (negative: cut, for `fill`).
    public struct Placement: Sendable, Hashable {
        public var scaledWidth: Int
        public var scaledHeight: Int
        public var cellWidth: Int
        public var cellHeight: Int
        public var left: Int
        public var top: Int
    }

    /// The placement of a `frameWidth` x `frameHeight` frame.
    public func placement(frameWidth: Int, frameHeight: Int) -> Placement {
        let (w, h) = (Double(max(1, frameWidth)), Double(max(1, frameHeight)))
        let fills = fill && width > 0 && height > 0
        let scale: Double = switch (width, height) {
        case (0, 0): 1
        case (0, _): Double(height) / h
        case (_, 0): Double(width) / w
        default: fills ? max(Double(width) / w, Double(height) / h) : min(Double(width) / w, Double(height) / h)
        }
        let scaled = (width: max(1, Int((w * scale).rounded())), height: max(1, Int((h * scale).rounded())))
        if fills {
            let left = min(max(0, Int((focusX * Double(scaled.width) - Double(width) / 2).rounded())), scaled.width - width)
            let top = min(max(0, Int((focusY * Double(scaled.height) - Double(height) / 2).rounded())), scaled.height - height)
            return Placement(scaledWidth: scaled.width, scaledHeight: scaled.height, cellWidth: width, cellHeight: height, left: -left, top: -top)
        }
        guard extend else {
            return Placement(scaledWidth: scaled.width, scaledHeight: scaled.height, cellWidth: scaled.width, cellHeight: scaled.height, left: 0, top: 0)
        }
        let cell = (width: width > 0 ? width : scaled.width, height: height > 0 ? height : scaled.height)
        return Placement(scaledWidth: scaled.width, scaledHeight: scaled.height, cellWidth: cell.width, cellHeight: cell.height,
                         left: (cell.width - scaled.width) / 2, top: (cell.height - scaled.height) / 2)
    }

    /// A stable text form for cache keys.
    public var identifier: String {
        let shape = switch layout {
        case .tiles(let columns, let rows): "vtt\(columns)x\(rows)"
        case .animation(let delay, let frames): "vta\(frames)d\(delay)"
        }
        return "\(shape):\(step):\(width)x\(height)" + (extend ? "e" : "") + (trim ? "t" : "") + (fill ? "f\(focusX),\(focusY)" : "")
    }
}
