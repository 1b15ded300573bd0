@testable import Darkroom
import Foundation
import Testing
import TestSupport

/// A step's numbers are held to one range by every door: the command
/// line's filters and the run refuse just past the bounds the URL parser
/// refuses past (its tests: ImageURLTests), and take the bounds.
@Suite(.offCooperativePool) struct StepRangesTests {
    @Test func theFiltersTakeTheBoundsAndRefuseJustPast() throws {
        #expect(try ImageOperation(filter: "sepia:1") == .sepia(intensity: 1))
        #expect(try ImageOperation(filter: "blur:\(StepRanges.blurSigma.upperBound)") == .blur(sigma: 100))
        #expect(try ImageOperation(filter: "sharpen:\(StepRanges.sharpenSigma.upperBound)") == .sharpen(sigma: 10))
        for past in ["sepia:1.01", "blur:100.01", "sharpen:10.01", "blur:0", "sharpen:0"] {
            #expect(throws: DarkroomError.self, "\(past)") { try ImageOperation(filter: past) }
        }
    }

    @Test func theRunTakesTheBoundsAndRefusesJustPast() throws {
        let photo = try solidPNG([200, 100, 50], width: 64, height: 64)
        func refused(_ operation: ImageOperation) -> Bool {
            refusal(photo, ProcessingOptions(operations: [operation], output: OutputOptions(format: .png)))?.kind == .invalidOption
        }
        #expect(!refused(.pixelate(size: StepRanges.pixelateSize.upperBound)) && refused(.pixelate(size: StepRanges.pixelateSize.upperBound + 1)))
        #expect(!refused(.sepia(intensity: 1)) && refused(.sepia(intensity: 1.01)))
        #expect(refused(.sharpen(sigma: StepRanges.sharpenSigma.upperBound + 0.01)) && refused(.blur(sigma: StepRanges.blurSigma.upperBound + 0.01)))
        #expect(!refused(.adjust(brightness: StepRanges.brightness.upperBound, contrast: 1, saturation: 1)))
        #expect(refused(.adjust(brightness: StepRanges.brightness.upperBound + 1, contrast: 1, saturation: 1)))
    }
}
