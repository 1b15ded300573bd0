@testable import Darkroom
import DarkroomImaging
import Foundation
import TestSupport

/// Processes in-line, as the tests need no thread hop (their suites run
/// off the cooperative pool), with no time limit a busy machine reaches
/// unless the test set one.
func process(_ data: Data, _ options: ProcessingOptions) throws(DarkroomError) -> ProcessedImage {
    try ImageProcessor.processBlocking(data, options: options.unhurried)
}

func process(fixture: String, _ operations: [ImageOperation] = [], output: OutputOptions = OutputOptions(format: .png), autoRotate: Bool = true) throws -> ProcessedImage {
    try process(try Fixtures.data(fixture), ProcessingOptions(operations: operations, output: output, autoRotate: autoRotate))
}

/// The pixels of a processed image.
func pixels(of image: ProcessedImage) throws -> RawPixels {
    try RawPixels.decode([UInt8](image.data), loader: image.format.loader)
}

/// Whether a pixel is (close to) pure red: the fixtures' top-left marker.
func isRed(_ pixel: [UInt8]) -> Bool {
    pixel[0] > 200 && pixel[1] < 60 && pixel[2] < 60
}

/// A solid image as PNG data.
func solidPNG(_ pixel: [UInt8], width: Int = 8, height: Int = 8) throws -> Data {
    Data(try RawPixels(width: width, height: height, filledWith: pixel).pngData())
}

/// The error processing `data` gives, or nil when it answers.
func refusal(_ data: Data, _ options: ProcessingOptions) -> DarkroomError? {
    do {
        _ = try ImageProcessor.processBlocking(data, options: options)
        return nil
    } catch {
        return error
    }
}
