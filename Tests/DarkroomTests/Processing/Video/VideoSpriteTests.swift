@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Many frames of a video in one answer (imgproxy Pro's `vtt` sprites and
/// `vta` animations), made by the child that reads the video. The video:
/// three seconds, red, blue, then green, 160 x 120.
@Suite(.offCooperativePool) struct VideoSpriteTests {
    static let video = Result { try TestVideo.threeColours() }

    func options(_ sprite: VideoSprite, second: Double = 0.5, format: ImageFormat? = .png,
                 configure: (inout ProcessingOptions) -> Void = { _ in }) -> ProcessingOptions {
        var options = ProcessingOptions(output: OutputOptions(format: format))
        options.limits.videoThumbnails = VideoThumbnails(command: [DarkroomProcess.binary.path, "render-video-frame"])
        (options.videoSecond, options.videoSprite) = (second, sprite)
        configure(&options)
        return options.unhurried
    }

    /// The strongest channel's name of a pixel, or "black".
    static func colour(_ pixel: [UInt8]) -> String {
        let rgb = pixel.prefix(3).map(Int.init)
        guard rgb.max()! > 60 else { return "black" }
        return ["red", "green", "blue"][rgb.indices.max { rgb[$0] < rgb[$1] }!]
    }

    /// Each cell's middle colour, row by row.
    static func cells(_ image: RawPixels, width: Int, height: Int) -> [String] {
        (0..<image.height / height).flatMap { row in
            (0..<image.width / width).map { column in colour(image.pixel(x: column * width + width / 2, y: row * height + height / 2)) }
        }
    }

    @Test func placementFitsFillsAndExtends() {
        var sprite = VideoSprite(layout: .tiles(columns: 1, rows: 1), step: 1, width: 100, height: 100)
        #expect(sprite.placement(frameWidth: 160, frameHeight: 120) == .init(scaledWidth: 100, scaledHeight: 75, cellWidth: 100, cellHeight: 75, left: 0, top: 0))
        sprite.extend = true
        #expect(sprite.placement(frameWidth: 160, frameHeight: 120) == .init(scaledWidth: 100, scaledHeight: 75, cellWidth: 100, cellHeight: 100, left: 0, top: 12))
        sprite.fill = true
        #expect(sprite.placement(frameWidth: 160, frameHeight: 120) == .init(scaledWidth: 133, scaledHeight: 100, cellWidth: 100, cellHeight: 100, left: -17, top: 0))
        sprite.focusX = 0
        #expect(sprite.placement(frameWidth: 160, frameHeight: 120).left == 0)
        sprite.focusX = 1
        #expect(sprite.placement(frameWidth: 160, frameHeight: 120).left == -33)
        // A side of 0 follows the frame's aspect; both 0: the frame's size.
        let tall = VideoSprite(layout: .tiles(columns: 1, rows: 1), step: 1, width: 0, height: 60)
        #expect(tall.placement(frameWidth: 160, frameHeight: 120).cellWidth == 80)
        let own = VideoSprite(layout: .tiles(columns: 1, rows: 1), step: 1, width: 0, height: 0)
        #expect(own.placement(frameWidth: 160, frameHeight: 120).cellWidth == 160)
    }

    @Test func timesStepFromTheSecondAndANegativeStepSharesTheDuration() {
        let positive = VideoSprite(layout: .tiles(columns: 2, rows: 2), step: 1, width: 10, height: 10)
        #expect(positive.times(start: 0.5, duration: 3) == [0.5, 1.5, 2.5, nil])
        let shared = VideoSprite(layout: .animation(delay: 100, frames: 4), step: -1, width: 10, height: 10)
        #expect(shared.times(start: 0, duration: 3) == [0, 0.75, 1.5, 2.25])
    }

    @Test func aSpriteHasAFrameEveryStepInItsCells() throws {
        let video = try Self.video.get()
        let row = try process(video, options(VideoSprite(layout: .tiles(columns: 3, rows: 1), step: 1, width: 80, height: 60)))
        #expect(row.width == 240 && row.height == 60)
        #expect(Self.cells(try pixels(of: row), width: 80, height: 60) == ["red", "blue", "green"])
        // A negative step: the duration over the cells, from second 0.
        let shared = try process(video, options(VideoSprite(layout: .tiles(columns: 1, rows: 3), step: -1, width: 80, height: 60), second: 0))
        #expect(shared.width == 80 && shared.height == 180)
        #expect(Self.cells(try pixels(of: shared), width: 80, height: 60) == ["red", "blue", "green"])
    }

    @Test func cellsPastTheEndAreBlackUnlessTrimmed() throws {
        let video = try Self.video.get()
        var sprite = VideoSprite(layout: .tiles(columns: 2, rows: 3), step: 1, width: 80, height: 60)
        let whole = try process(video, options(sprite))
        #expect(whole.width == 160 && whole.height == 180)
        #expect(Self.cells(try pixels(of: whole), width: 80, height: 60) == ["red", "blue", "green", "black", "black", "black"])
        sprite.trim = true
        let trimmed = try process(video, options(sprite))
        #expect(trimmed.width == 160 && trimmed.height == 120)
        #expect(Self.cells(try pixels(of: trimmed), width: 80, height: 60) == ["red", "blue", "green", "black"])
    }

    @Test func extendedCellsAreTheBoxWithTheFrameCentredOnBlack() throws {
        let video = try Self.video.get()
        var sprite = VideoSprite(layout: .tiles(columns: 2, rows: 1), step: 1, width: 100, height: 100, extend: true)
        let sheet = try pixels(of: try process(video, options(sprite)))
        #expect(sheet.width == 200 && sheet.height == 100)
        #expect(Self.colour(sheet.pixel(x: 50, y: 4)) == "black" && Self.colour(sheet.pixel(x: 50, y: 50)) == "red")
        #expect(Self.colour(sheet.pixel(x: 150, y: 95)) == "black" && Self.colour(sheet.pixel(x: 150, y: 50)) == "blue")
        sprite.fill = true
        let filled = try pixels(of: try process(video, options(sprite)))
        #expect(filled.width == 200 && filled.height == 100)
        #expect(Self.colour(filled.pixel(x: 50, y: 2)) == "red", "filled: no black bars")
    }

    @Test func anAnimationHasAFrameEveryStepAtItsDelay() throws {
        let video = try Self.video.get()
        let sprite = VideoSprite(layout: .animation(delay: 250, frames: 3), step: 1, width: 80, height: 60)
        let gif = try process(video, options(sprite, format: .gif))
        let frames = try AnimationTests.frames(of: gif)
        #expect(frames.count == 3 && frames.width == 80 && frames.height == 60)
        #expect(frames.colours.map(Self.colour) == ["red", "blue", "green"])
        #expect(frames.delays == [250, 250, 250])
        // No format asked: a GIF, as for an animated source.
        #expect(try process(video, options(sprite, format: nil)).format == .gif)
        // A still format: the first frame alone.
        let still = try process(video, options(sprite, format: .jpeg))
        #expect(still.format == .jpeg && still.width == 80 && still.height == 60)
        #expect(Self.colour(try pixels(of: still).pixel(x: 40, y: 30)) == "red")
        // Each frame goes through the steps.
        let resized = try process(video, options(sprite, format: .webp) { $0.operations = [.resize(Resize(width: 40, height: 30))] })
        let small = try AnimationTests.frames(of: resized)
        #expect(small.count == 3 && small.width == 40 && small.height == 30)
    }

    @Test func framesPastTheEndOfAnAnimationAreLeftOutWhenTrimmed() throws {
        let video = try Self.video.get()
        var sprite = VideoSprite(layout: .animation(delay: 100, frames: 5), step: 1, width: 80, height: 60)
        #expect(try AnimationTests.frames(of: try process(video, options(sprite, format: .gif))).count == 5)
        sprite.trim = true
        let trimmed = try AnimationTests.frames(of: try process(video, options(sprite, format: .gif)))
        #expect(trimmed.count == 3 && trimmed.colours.map(Self.colour) == ["red", "blue", "green"])
    }

    @Test func aSpriteOverThePixelLimitIsRefusedByTheChild() throws {
        let video = try Self.video.get()
        let sprite = VideoSprite(layout: .tiles(columns: 10, rows: 10), step: 0.1, width: 1000, height: 1000, extend: true)
        let refused = refusal(video, options(sprite) { $0.limits.maxSourcePixels = 50_000_000 })
        #expect(refused?.kind == .tooManyPixels, "\(String(describing: refused))")
        let bad = VideoSprite(layout: .tiles(columns: 0, rows: 1), step: 1, width: 10, height: 10)
        #expect(refusal(video, options(bad))?.kind == .invalidOption)
    }

    @Test func theSpriteIsInTheCacheKey() {
        let sprite = VideoSprite(layout: .tiles(columns: 3, rows: 1), step: 1, width: 80, height: 60)
        var other = sprite
        other.trim = true
        #expect(options(sprite).identifier != options(other).identifier)
        #expect(options(sprite).identifier != options(VideoSprite(layout: .animation(delay: 1, frames: 3), step: 1, width: 80, height: 60)).identifier)
    }
}
