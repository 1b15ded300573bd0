import DarkroomImaging
import Foundation

/// Raster images inside an SVG (`data:image/...` in an href or a CSS
/// `url()`): librsvg hands them to its decoders whole, in the drawing
/// child, where no source limit is asked. Each one's header is read here
/// and held to the limits a source of its own would be (pixels, scans,
/// frames), and all of them together to the request's budget at four
/// bytes a pixel for every frame; one that is over, or whose header
/// cannot be read, is dropped from the document (the rest is drawn, as a
/// browser draws a page with a broken image).
extension SVGSanitizer {
    /// The limits embedded images are held to: those of a source.
    struct EmbeddedImageLimits: Sendable {
        var maxPixels: Int
        var maxJPEGScans: Int
        var maxFrames: Int
        /// What all the document's images may hold decoded.
        var maxMemory: Int

        init(maxPixels: Int, maxJPEGScans: Int, maxFrames: Int, maxMemory: Int) {
            self.maxPixels = maxPixels
            self.maxJPEGScans = maxJPEGScans
            self.maxFrames = maxFrames
            self.maxMemory = maxMemory
        }

        init(_ limits: ImageLimits) {
            self.init(maxPixels: limits.maxSourcePixels, maxJPEGScans: limits.maxJPEGScans,
                      maxFrames: limits.maxSourceFrames, maxMemory: limits.maxDecodeMemory)
        }
    }

    /// What one document's images have used of their limits so far.
    final class EmbeddedImageBudget {
        let limits: EmbeddedImageLimits
        private(set) var held = 0

        init(_ limits: EmbeddedImageLimits) {
            self.limits = limits
        }

        /// Whether the data URL `url` (as written, any case) may stay; its
        /// decoded cost is added when it does.
        func admits(_ url: Substring) -> Bool {
            guard let bytes = Self.payload(of: url), let cost = cost(of: bytes) else { return false }
            let (total, overflow) = held.addingReportingOverflow(cost)
            guard !overflow, total <= limits.maxMemory else { return false }
            held = total
            return true
        }

        /// The decoded bytes of a data URL: base64, or percent-encoded text.
        static func payload(of url: Substring) -> [UInt8]? {
            guard let comma = url.firstIndex(of: ",") else { return nil }
            let header = url[..<comma].lowercased()
            let body = url[url.index(after: comma)...]
            if header.hasSuffix(";base64") {
                return Data(base64Encoded: String(body), options: .ignoreUnknownCharacters).map { [UInt8]($0) }
            }
            return String(body).removingPercentEncoding.map { Array($0.utf8) }
        }

        /// What the image costs decoded, or nil when it is over a limit or
        /// its header cannot be read.
        func cost(of bytes: [UInt8]) -> Int? {
            bytes.withUnsafeBytes { raw -> Int? in
                guard let facts = Self.facts(raw, maxFrames: limits.maxFrames), facts.width > 0, facts.height > 0 else { return nil }
                let pixels = MemoryCost.product(facts.width, facts.height)
                guard pixels <= limits.maxPixels, facts.frames <= limits.maxFrames, facts.scans <= limits.maxJPEGScans else { return nil }
                let frames = MemoryCost.product(pixels, 4, facts.frames)
                return frames > Int.max - facts.coefficients ? .max : frames + facts.coefficients
            }
        }

        struct Facts {
            var width: Int
            var height: Int
            var frames = 1
            var scans = 1
            /// What libjpeg holds of a multi-scan JPEG's coefficients.
            var coefficients = 0
        }

        /// Size, frames (counted up to one past `maxFrames`) and scans from
        /// the container alone.
        static func facts(_ raw: UnsafeRawBufferPointer, maxFrames: Int) -> Facts? {
            func be32(_ at: Int) -> Int { Int(raw[at]) << 24 | Int(raw[at + 1]) << 16 | Int(raw[at + 2]) << 8 | Int(raw[at + 3]) }
            func le16(_ at: Int) -> Int { Int(raw[at]) | Int(raw[at + 1]) << 8 }
            func le24(_ at: Int) -> Int { le16(at) | Int(raw[at + 2]) << 16 }
            guard case .image(let format) = ImageFormat.sniff(raw) else { return nil }
            switch format {
            case .png:
                // The signature, then IHDR: width and height, big-endian.
                guard raw.count >= 24 else { return nil }
                return Facts(width: be32(16), height: be32(20))
            case .gif:
                guard raw.count >= 10 else { return nil }
                let frames = FrameCount.gif(raw, limit: maxFrames) ?? 1
                return Facts(width: le16(6), height: le16(8), frames: frames)
            case .webp:
                guard raw.count >= 30 else { return nil }
                let frames = FrameCount.webp(raw, limit: maxFrames) ?? 1
                switch String(decoding: UnsafeRawBufferPointer(rebasing: raw[12..<16]), as: UTF8.self) {
                case "VP8X": return Facts(width: le24(24) + 1, height: le24(27) + 1, frames: frames)
                case "VP8L":
                    let bits = UInt32(raw[21]) | UInt32(raw[22]) << 8 | UInt32(raw[23]) << 16 | UInt32(raw[24]) << 24
                    return Facts(width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1)
                case "VP8 ": return Facts(width: le16(26) & 0x3FFF, height: le16(28) & 0x3FFF)
                default: return nil
                }
            case .jpeg:
                guard let structure = SourceFacts.jpegStructure(raw) else { return nil }
                return Facts(width: structure.width, height: structure.height, scans: structure.isMultiScan ? structure.scans : 1,
                             coefficients: structure.isMultiScan ? structure.coefficientBytes : 0)
            default:
                return nil
            }
        }
    }
}
