import Darkroom
import DarkroomImaging
import Foundation

/// The thumbnail engine's fuzz target: the input's first twelve bytes
/// choose the request and how the decode runs (its shape, its crop, the
/// kernels, a stop after some number of the decoder's looks at its kill
/// switch), the rest is the image; or, with the first byte odd, the rows
/// of a PNG before compression, which the harness compresses and wraps
/// with valid checksums, so that mutated pixels and filters reach the
/// unfilter and the resampler instead of failing a CRC.
enum ThumbnailFuzzing {
    static let header = 12

    static func run(_ data: Data) {
        guard data.count > header else { return }
        let b = [UInt8](data.prefix(header))
        func number(_ at: Int) -> Int { Int(b[at]) << 8 | Int(b[at + 1]) }
        let image: Data
        if b[0] & 1 == 1 {
            guard let png = filteredRowsPNG(data.dropFirst(header)) else { return }
            image = png
        } else {
            image = Data(data.dropFirst(header))
        }
        let modes: [Resize.Mode] = [.fit, .fill, .force, .fillDown]
        let gravity = Gravity(Gravity.Kind.allCases.filter { $0 != .smart && $0 != .focusPoint }[Int(b[1] >> 4) % 9])
        let width = 1 + number(2) % 320, height = 1 + number(4) % 320
        var operations: [ImageOperation] = [.resize(Resize(width: width, height: height, mode: modes[Int(b[1]) % modes.count], gravity: gravity))]
        if b[6] & 0x80 != 0 { operations.append(.sepia(intensity: Double(b[6] & 0x7F) / 127)) }
        var options = ProcessingOptions(operations: operations, output: OutputOptions(format: .jpeg, quality: 1 + Int(b[7]) % 100))
        options.limits.maxSourcePixels = 4_000_000
        options.limits.maxSourceBytes = 1 << 20
        options.limits.maxProcessingTime = .seconds(5)
        options.limits.maxDecodeMemory = 64 << 20
        // Both engines, as a request runs them.
        _ = try? ImageProcessor.processBlocking(image, options: options, killSwitch: KillSwitch())
        // The decoder itself, with the kernels and stop the input chose.
        let kernels = [Thumbnail.Kernels.best, .scalar, .sse2, .avx2][Int(b[8]) % 4]
        decodeDirectly(image, shrink: 1 << (Int(b[9]) % 4), crop: (b[10], b[11]), target: (width, height),
                       kernels: kernels.isAvailable ? kernels : .best, stopAfter: number(9) >> 2)
    }

    /// A PNG around the rows in `payload`: its first four bytes give the
    /// size (up to 96 x 96), the rest fills the rows (a filter byte, then
    /// pixels), repeated as needed.
    static func filteredRowsPNG(_ payload: Data) -> Data? {
        let p = [UInt8](payload)
        guard p.count > 4 else { return nil }
        let width = 1 + (Int(p[0]) << 8 | Int(p[1])) % 96, height = 1 + (Int(p[2]) << 8 | Int(p[3])) % 96
        let body = Array(p.dropFirst(4))
        let size = height * (width * 3 + 1)
        let rows = (0..<size).map { body[$0 % body.count] }
        return Thumbnail.png(filteredRows: rows, width: width, height: height).map { Data($0) }
    }

    static func decodeDirectly(_ image: Data, shrink: Int, crop: (UInt8, UInt8), target: (Int, Int), kernels: Thumbnail.Kernels, stopAfter: Int) {
        guard case .image(let format) = ImageFormat.sniff(image) else { return }
        let kind: Thumbnail.Format
        switch format {
        case .jpeg: kind = .jpeg
        case .png: kind = .png
        case .webp: kind = .webp
        case .avif: kind = .avif
        default: return
        }
        image.withUnsafeBytes { raw in
            guard let header = Thumbnail.header(raw, format: kind), header.isSupported,
                  header.width * header.height <= 4_000_000 else { return }
            let shrink = kind == .png || kind == .avif ? 1 : shrink
            let decoded = Thumbnail.decodedSize(format: kind, width: header.width, height: header.height, shrink: shrink)
            guard decoded.width > 0, decoded.height > 0 else { return }
            let scaled = (min(target.0, decoded.width), min(target.1, decoded.height))
            let cropWidth = max(1, scaled.0 - Int(crop.0) % scaled.0), cropHeight = max(1, scaled.1 - Int(crop.1) % scaled.1)
            let plan = Thumbnail.Plan(shrink: shrink, decodedWidth: decoded.width, decodedHeight: decoded.height,
                                      horizontalScale: Double(scaled.0) / Double(decoded.width),
                                      verticalScale: Double(scaled.1) / Double(decoded.height),
                                      cropLeft: (scaled.0 - cropWidth) / 2, cropTop: scaled.1 - cropHeight,
                                      cropWidth: cropWidth, cropHeight: cropHeight, kernels: kernels)
            guard let memory = Thumbnail.memory(raw, format: kind, plan: plan), memory <= 64 << 20 else { return }
            let watch = Thumbnail.Watch(killSwitch: VipsKillSwitch(), stopAfter: stopAfter == 0 ? nil : stopAfter)
            _ = try? Thumbnail.decode(raw, format: kind, plan: plan, maxScans: 100, maxMemory: 64 << 20, watch: watch)
        }
    }
}
