@testable import Darkroom
import DarkroomImaging
import Foundation
import Testing
import TestSupport

/// Darkroom's SSIM against scikit-image's on the same pixels, and
/// imgproxy Pro's autoquality built on it.
@Suite(.offCooperativePool) struct AutoqualityTests {
    /// A photo as `width` x `height` luma, and the same after `operations`
    /// and a trip through `format` at `quality`.
    private static func luma(_ operations: [ImageOperation] = [], format: ImageFormat = .png, quality: Int = 90) throws -> [UInt8] {
        let options = ProcessingOptions(operations: [.resize(Resize(width: 120, height: 90, mode: .force))] + operations,
                                        output: OutputOptions(format: format, quality: quality))
        let encoded = try process(try Corpus.data("Blinds.jpg"), options)
        return try encoded.data.withUnsafeBytes { raw in
            let luma = try VImage.load(raw, loader: format.loader, randomAccess: true).srgb8().luma()
            return try VipsKillSwitch().armed(luma) { pass throws(VipsError) in try luma.pixelBytes(pass) }
        }
    }

    /// scikit-image's SSIM of each pair.
    private static func reference(_ pairs: [([UInt8], [UInt8])], width: Int, height: Int) throws -> [Double] {
        let folder = try Fixtures.temporaryFolder("ssim")
        defer { try? FileManager.default.removeItem(at: folder) }
        var files: [String] = []
        for (index, pair) in pairs.enumerated() {
            for (side, samples) in [("a", pair.0), ("b", pair.1)] {
                let file = folder.appendingPathComponent("\(index)\(side)")
                try Data(samples).write(to: file)
                files.append(file.path)
            }
        }
        let process = Process()
        process.executableURL = OTLPReceiver.python
        process.arguments = [Corpus.packageRoot.appendingPathComponent("Tests/Tools/ssim_reference.py").path, "\(width)", "\(height)"] + files
        let output = Pipe()
        process.standardOutput = output
        process.environment = TiedProcess.environment()
        try TiedProcess.run(process)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "scikit-image is in .venv (scripts/bootstrap)")
        return text.split(separator: "\n").compactMap { Double($0) }
    }

    @Test func ssimIsScikitImages() throws {
        let original = try Self.luma()
        let pairs: [([UInt8], [UInt8])] = [
            (original, original),
            (original, try Self.luma(format: .jpeg, quality: 15)),
            (original, try Self.luma(format: .webp, quality: 40)),
            (original, try Self.luma([.blur(sigma: 1.2)])),
            (original, original.map { $0 / 2 + 60 }),
            (original, (0..<original.count).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }),
        ]
        let expected = try Self.reference(pairs, width: 120, height: 90)
        try #require(expected.count == pairs.count)
        for (index, pair) in pairs.enumerated() {
            let ours = try #require(SSIM.mean(pair.0, pair.1, width: 120, height: 90))
            #expect(abs(ours - expected[index]) < 1e-4, "pair \(index): \(ours), scikit-image \(expected[index])")
        }
        #expect(expected[0] == 1 && expected[1] < expected[0] && expected[5] < 0.2)
        #expect(SSIM.mean([UInt8](repeating: 0, count: 100), [UInt8](repeating: 0, count: 100), width: 10, height: 10) == nil, "no pixel 5 from every edge")
    }

    // WebP, and the sizes compared against written from the same pixels:
    // both take the thumbnail path.
    private func autoquality(_ settings: Autoquality, format: ImageFormat = .webp) throws -> ProcessedImage {
        var output = OutputOptions(format: format)
        output.autoquality = settings
        return try process(try Corpus.data("Blinds.jpg"), ProcessingOptions(operations: [.resize(Resize(width: 240, height: 240))], output: output))
    }

    private func size(at quality: Int, format: ImageFormat = .webp) throws -> Int {
        try process(try Corpus.data("Blinds.jpg"), ProcessingOptions(operations: [.resize(Resize(width: 240, height: 240))],
                                                                     output: OutputOptions(format: format, quality: quality))).data.count
    }

    @Test func bySizeTheHighestQualityThatFits() throws {
        let target = try size(at: 60)
        let chosen = try autoquality(Autoquality(method: .size, target: Double(target), minQuality: 30, maxQuality: 90))
        #expect(chosen.data.count == target, "quality 60 is the highest that fits \(target) bytes: \(chosen.data.count)")
        #expect(try size(at: 61) > target)
        // None fits: the lowest quality.
        let tiny = try autoquality(Autoquality(method: .size, target: 100, minQuality: 30, maxQuality: 90))
        #expect(tiny.data.count == (try size(at: 30)))
        // A per-format range over the general one.
        var ranged = Autoquality(method: .size, target: 1e9, minQuality: 30, maxQuality: 90)
        ranged.formatMax[.avif] = 50
        #expect(try autoquality(ranged, format: .avif).data.count == (try size(at: 50, format: .avif)))
        #expect(try autoquality(ranged).data.count == (try size(at: 90)), "the range for WebP is the general one")
    }

    @Test func byDSSIMTheLowestQualityThatMeetsTheTarget() throws {
        let original = try pixels(of: process(try Corpus.data("Blinds.jpg"),
                                              ProcessingOptions(operations: [.resize(Resize(width: 240, height: 240))], output: OutputOptions(format: .png))))
        func dssim(of image: ProcessedImage) throws -> Double {
            let reference = try Self.grey(original)
            let decoded = try Self.grey(try RawPixels.decode([UInt8](image.data), loader: image.format.loader))
            return try #require(SSIM.dissimilarity(reference, decoded, width: original.width, height: original.height))
        }
        for target in [0.01, 0.03] {
            let chosen = try autoquality(Autoquality(method: .dssim, target: target, minQuality: 10, maxQuality: 95, allowedError: 0.0005))
            let measured = try dssim(of: chosen)
            #expect(measured <= target + 0.0005, "target \(target): \(measured)")
            // Smaller than the top of the range: quality was spent only where needed.
            #expect(chosen.data.count < (try size(at: 95)), "target \(target)")
        }
        let strict = try autoquality(Autoquality(method: .dssim, target: 0.01, minQuality: 10, maxQuality: 95, allowedError: 0.0005))
        let loose = try autoquality(Autoquality(method: .dssim, target: 0.03, minQuality: 10, maxQuality: 95, allowedError: 0.0005))
        #expect(loose.data.count < strict.data.count)
        // Out of range settings are refused with the reason.
        for bad in [Autoquality(method: .dssim, target: 2), Autoquality(method: .size, target: 0), Autoquality(method: .dssim, minQuality: 0)] {
            #expect(throws: DarkroomError.self) { try autoquality(bad) }
        }
    }

    private static func grey(_ pixels: RawPixels) throws -> [UInt8] {
        stride(from: 0, to: pixels.bytes.count, by: pixels.bands).map { p in
            let red = 299 * Double(pixels.bytes[p]), green = 587 * Double(pixels.bytes[p + 1]), blue = 114 * Double(pixels.bytes[p + 2])
            return UInt8(min(255, ((red + green + blue) / 1000 + 0.5).rounded(.down)))
        }
    }
}
