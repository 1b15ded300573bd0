@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// imgproxy Pro's `page`, `pages` and `disable_animation` on the four
/// frames of the animated fixtures: red, green, blue, yellow.
@Suite(.offCooperativePool) struct PageSelectionTests {
    private func answer(_ fixture: String, _ pages: PageSelection, format: ImageFormat = .png) throws -> ProcessedImage {
        var options = ProcessingOptions(output: OutputOptions(format: format))
        options.pages = pages
        return try process(try Fixtures.data(fixture), options)
    }

    @Test(arguments: ["animated.gif", "animated.webp"])
    func aFrameOrAStackOfThemAsAStillImage(fixture: String) throws {
        let colours = AnimationTests.colours
        // One frame, still, in a format that animates: da.
        let first = try AnimationTests.frames(of: answer(fixture, PageSelection(disableAnimation: true), format: .webp))
        #expect(first.count == 1 && AnimationTests.close(first.colours[0], colours[0]))
        let third = try AnimationTests.frames(of: answer(fixture, PageSelection(first: 2, disableAnimation: true), format: .webp))
        #expect(third.count == 1 && AnimationTests.close(third.colours[0], colours[2]), "\(third.colours)")
        // Three from the second, stacked top to bottom, one still image.
        let stacked = try answer(fixture, PageSelection(first: 1, count: 3, disableAnimation: true), format: .webp)
        let frames = try AnimationTests.frames(of: stacked)
        #expect(frames.count == 1 && (frames.width, frames.height) == (120, 240))
        let pixels = try RawPixels.decode([UInt8](stacked.data), loader: .webp)
        for (index, colour) in colours[1...3].enumerated() {
            #expect(AnimationTests.close(Array(pixels.pixel(x: 2, y: 2 + 80 * index).prefix(3)), colour), "page \(index + 1)")
        }
        // More than there are: those there are.
        let clipped = try answer(fixture, PageSelection(first: 2, count: 10))
        #expect((clipped.width, clipped.height) == (120, 160))
        // A still format needs no da.
        let second = try RawPixels.decode([UInt8](try answer(fixture, PageSelection(first: 1)).data), loader: .png)
        #expect(AnimationTests.close(Array(second.pixel(x: 2, y: 2).prefix(3)), colours[1]))
    }

    @Test func anAnimationKeepsEveryFrameAndBadPagesAreRefused() throws {
        // As imgproxy: an animated answer ignores page and pages.
        let animated = try AnimationTests.frames(of: answer("animated.gif", PageSelection(first: 2, count: 1), format: .webp))
        #expect(animated.count == 4)
        for bad in [PageSelection(first: 4), PageSelection(first: -1), PageSelection(count: 0), PageSelection(count: 101)] {
            do {
                _ = try answer("animated.gif", bad)
                Issue.record("\(bad) was answered")
            } catch let error as DarkroomError {
                #expect(error.kind == .invalidOption, "\(error)")
            }
        }
        do {
            _ = try answer("animated.gif", PageSelection(first: 4))
        } catch let error as DarkroomError {
            #expect(error.reason.contains("4 pages"), "\(error.reason)")
        }
        // A JPEG has one page: page 0 only is meaningful, and asked more it is itself.
        let jpeg = try answer("landscape.jpg", PageSelection(first: 0, count: 3))
        #expect((jpeg.width, jpeg.height) == (240, 160))
    }
}
