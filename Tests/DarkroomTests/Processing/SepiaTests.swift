@testable import Darkroom
import Foundation
import Testing
import TestSupport

@Suite(.offCooperativePool) struct SepiaTests {
    /// (1 - i) I + i S applied to one pixel, clipped, as the issue defines it.
    func expected(_ p: [Double], intensity i: Double) -> [Int] {
        let s = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
        return (0..<3).map { row in
            let sepia = (0..<3).reduce(0.0) { $0 + s[row][$1] * p[$1] }
            return Int(min(255, max(0, ((1 - i) * p[row] + i * sepia).rounded())))
        }
    }

    @Test(arguments: [
        ([200.0, 100.0, 50.0], 0.8),
        ([200.0, 100.0, 50.0], 1.0),
        ([255.0, 255.0, 255.0], 0.8),   // clips at 255
        ([10.0, 200.0, 90.0], 0.5),
    ])
    func aKnownPixelGivesTheMatrixValues(pixel: [Double], intensity: Double) throws {
        let input = try solidPNG(pixel.map { UInt8($0) })
        let result = try process(input, ProcessingOptions(operations: [.sepia(intensity: intensity)], output: OutputOptions(format: .png)))
        let out = try pixels(of: result).pixel(x: 3, y: 3).map(Int.init)
        let want = expected(pixel, intensity: intensity)
        for band in 0..<3 {
            #expect(abs(out[band] - want[band]) <= 1, "band \(band): got \(out), want \(want)")
        }
    }

    @Test func theDefaultIntensityIsTheSeeds() throws {
        #expect(try ImageOperation(filter: "sepia") == .sepia(intensity: 0.8))
    }

    @Test func alphaIsKept() throws {
        let input = try solidPNG([200, 100, 50, 128])
        let result = try process(input, ProcessingOptions(operations: [.sepia(intensity: 0.8)], output: OutputOptions(format: .png)))
        let out = try pixels(of: result)
        #expect(out.bands == 4)
        #expect(out.pixel(x: 0, y: 0)[3] == 128)
        #expect(abs(Int(out.pixel(x: 0, y: 0)[0]) - expected([200, 100, 50], intensity: 0.8)[0]) <= 1)
    }

    @Test func intensityZeroIsTheIdentity() throws {
        let source = try pixels(of: try process(fixture: "landscape.jpg"))
        let result = try pixels(of: try process(fixture: "landscape.jpg", [.sepia(intensity: 0)]))
        #expect(result == source)
    }

    @Test func intensityOutsideZeroToOneIsRefused() throws {
        #expect(throws: DarkroomError.self) { try process(fixture: "landscape.jpg", [.sepia(intensity: 1.5)]) }
        #expect(throws: DarkroomError.self) { try ImageOperation(filter: "sepia:2") }
    }
}
