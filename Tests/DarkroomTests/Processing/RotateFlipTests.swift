@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// `rotate` and `flip`: sizes, and where the pixels go.
@Suite(.offCooperativePool) struct RotateFlipTests {
    /// 40 x 20: the left half red, the right half blue.
    static func halves() throws -> Data {
        var bytes: [UInt8] = []
        for _ in 0..<20 {
            for x in 0..<40 { bytes += x < 20 ? [220, 20, 20] : [20, 20, 220] }
        }
        return Data(try RawPixels(width: 40, height: 20, bands: 3, bytes: bytes).pngData())
    }

    static func run(_ operations: [ImageOperation]) throws -> RawPixels {
        try pixels(of: try process(try halves(), ProcessingOptions(operations: operations, output: OutputOptions(format: .png))))
    }

    static func isRed(_ pixel: [UInt8]) -> Bool { pixel[0] > 150 && pixel[2] < 80 }
    static func isBlue(_ pixel: [UInt8]) -> Bool { pixel[2] > 150 && pixel[0] < 80 }

    @Test func aQuarterTurnClockwiseBringsTheLeftToTheTop() throws {
        let turned = try Self.run([.rotate(degrees: 90)])
        #expect((turned.width, turned.height) == (20, 40))
        #expect(Self.isRed(turned.pixel(x: 10, y: 5)))
        #expect(Self.isBlue(turned.pixel(x: 10, y: 35)))
        let back = try Self.run([.rotate(degrees: 270)])
        #expect(Self.isBlue(back.pixel(x: 10, y: 5)))
        let half = try Self.run([.rotate(degrees: 180)])
        #expect((half.width, half.height) == (40, 20))
        #expect(Self.isBlue(half.pixel(x: 5, y: 10)))
        #expect(try Self.run([.rotate(degrees: 360)]).pixel(x: 5, y: 10) == (try Self.run([])).pixel(x: 5, y: 10))
    }

    @Test func sizesAreMeasuredOnTheTurnedImage() throws {
        let image = try process(try Self.halves(), ProcessingOptions(operations: [.rotate(degrees: 90), .resize(Resize(width: 10, height: nil))],
                                                                output: OutputOptions(format: .png)))
        #expect((image.width, image.height) == (10, 20))
    }

    @Test func flipsMirror() throws {
        let mirrored = try Self.run([.flip(horizontal: true, vertical: false)])
        #expect(Self.isBlue(mirrored.pixel(x: 5, y: 10)))
        #expect(Self.isRed(mirrored.pixel(x: 35, y: 10)))
        // Top to bottom leaves left and right as they were.
        let upsideDown = try Self.run([.flip(horizontal: false, vertical: true)])
        #expect(Self.isRed(upsideDown.pixel(x: 5, y: 10)))
        // Turned, then mirrored top to bottom: the red half ends at the bottom.
        let both = try Self.run([.rotate(degrees: 90), .flip(horizontal: false, vertical: true)])
        #expect(Self.isBlue(both.pixel(x: 10, y: 5)) && Self.isRed(both.pixel(x: 10, y: 35)))
    }

    @Test func onlyQuarterTurns() {
        #expect(throws: DarkroomError.self) { try Self.run([.rotate(degrees: 45)]) }
    }
}
