@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Animated GIF and WebP: the fixtures have four 120 x 80 frames, red,
/// green, blue and yellow, shown 100, 200, 300 and 400 ms.
@Suite(.offCooperativePool) struct AnimationTests {
    static let colours: [[UInt8]] = [[220, 30, 30], [30, 180, 40], [30, 60, 220], [240, 200, 20]]

    /// The frames of an answer: how many, their size, each one's colour
    /// near its left edge, and the delays.
    struct Frames {
        var count: Int
        var width: Int
        var height: Int
        var colours: [[UInt8]]
        var delays: [Int]
    }

    static func frames(of image: ProcessedImage) throws -> Frames {
        let bytes = [UInt8](image.data)
        let (count, delays) = try withRawBytes(of: bytes) { raw throws(VipsError) in
            let header = try VImage.load(raw, loader: image.format.loader)
            return (header.pageCount, header.frameDelays)
        }
        let strip = try RawPixels.decode(bytes, loader: image.format.loader, pages: -1)
        let height = strip.height / count
        let colours = (0..<count).map { strip.pixel(x: 2, y: $0 * height + 2).prefix(3).map { $0 } }
        return Frames(count: count, width: strip.width, height: height, colours: colours, delays: delays)
    }

    static func close(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        zip(a, b).allSatisfy { abs(Int($0) - Int($1)) <= 24 }
    }

    @Test(arguments: ["animated.gif", "animated.webp"])
    func everyFrameGoesThroughTheStepsAndKeepsItsTiming(fixture: String) throws {
        let result = try process(fixture: fixture, [.resize(Resize(width: 60, height: 40))], output: OutputOptions())
        let source = try #require(ImageFormat(name: String(fixture.split(separator: ".").last!)))
        #expect(result.format == source, "the source's format is kept")
        #expect((result.width, result.height) == (60, 40))
        let frames = try Self.frames(of: result)
        #expect(frames.count == 4)
        #expect((frames.width, frames.height) == (60, 40))
        for (colour, expected) in zip(frames.colours, Self.colours) {
            #expect(Self.close(colour, expected), "\(colour) for \(expected)")
        }
        #expect(frames.delays == [100, 200, 300, 400])
    }

    @Test func aGIFAskedForAsWebPIsAnAnimatedWebP() throws {
        let result = try process(fixture: "animated.gif", [ImageOperation.cropPlaced(width: 60, height: 60, gravity: .centre)], output: OutputOptions(format: .webp))
        #expect(result.format == .webp)
        let frames = try Self.frames(of: result)
        #expect(frames.count == 4)
        #expect((frames.width, frames.height) == (60, 60))
        #expect(Self.close(frames.colours[2], Self.colours[2]))
    }

    @Test func aStillFormatGetsTheFirstFrame() throws {
        let result = try process(fixture: "animated.gif", output: OutputOptions(format: .png))
        #expect((result.width, result.height) == (120, 80))
        #expect(try Self.frames(of: result).count == 1)
        #expect(Self.close(try pixels(of: result).pixel(x: 2, y: 2), Self.colours[0]))
    }

    @Test func aClientThatNamesItsFormatsGetsWebPOrAStillImage() throws {
        var output = OutputOptions()
        output.acceptedFormats = [.jpeg, .webp]
        let webp = try process(fixture: "animated.gif", output: output)
        #expect(webp.format == .webp)
        #expect(try Self.frames(of: webp).count == 4)

        output.acceptedFormats = [.jpeg, .png]
        let still = try process(fixture: "animated.gif", output: output)
        #expect([.jpeg, .png].contains(still.format), "GIF frames carry alpha, so PNG")
        #expect((still.width, still.height) == (120, 80))
    }

    @Test func aPreferredStillFormatFallsBackToTheAnimationFormat() throws {
        var output = OutputOptions(format: .avif)
        output.animationFormat = .webp
        let result = try process(fixture: "animated.webp", output: output)
        #expect(result.format == .webp)
        #expect(try Self.frames(of: result).count == 4)
        // A still source is answered in the preferred format as before.
        #expect(try process(fixture: "landscape.jpg", output: output).format == .avif)
    }

    @Test func theFrameLimitKeepsTheFirstFrames() throws {
        var options = ProcessingOptions(output: OutputOptions(format: .gif))
        options.limits.maxAnimationFrames = 2
        let two = try process(try Fixtures.data("animated.gif"), options)
        let frames = try Self.frames(of: two)
        #expect(frames.count == 2)
        #expect(Self.close(frames.colours[1], Self.colours[1]))
        #expect(frames.delays == [100, 200])

        options.limits.maxAnimationFrames = 1
        #expect(try Self.frames(of: try process(try Fixtures.data("animated.gif"), options)).count == 1)
    }

    @Test func thePixelLimitCountsEveryFrame() throws {
        var options = ProcessingOptions(output: OutputOptions(format: .gif))
        options.limits.maxSourcePixels = 120 * 80 * 3
        let error = #expect(throws: DarkroomError.self) { try process(try Fixtures.data("animated.gif"), options) }
        #expect(error?.kind == .tooManyPixels)
        #expect(error?.reason.contains("4 frames") == true, "\(error?.reason ?? "")")
        // One frame fits.
        options.output.format = .png
        #expect(try process(try Fixtures.data("animated.gif"), options).format == .png)
    }

    @Test func stepsThatTouchEveryPixelRunOnEveryFrame() throws {
        let result = try process(fixture: "animated.webp", [.grayscale, .rotate(degrees: 90)], output: OutputOptions(format: .webp))
        let frames = try Self.frames(of: result)
        #expect(frames.count == 4)
        #expect((frames.width, frames.height) == (80, 120))
        for colour in frames.colours {
            #expect(colour.max()! - colour.min()! <= 8, "grey: \(colour)")
        }
    }
}
