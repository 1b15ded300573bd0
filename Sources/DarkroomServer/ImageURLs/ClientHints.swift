import Foundation
import Darkroom

/// A browser's client hints, as imgproxy reads them with
/// `IMGPROXY_ENABLE_CLIENT_HINTS`: the device pixel ratio (`Sec-CH-DPR`,
/// else `DPR`) and the width the image is laid out at, in device pixels
/// (`Sec-CH-Width`, else `Width`). They stand for a URL's `dpr` and width
/// where the URL (or the default preset) does not set its own.
public struct ClientHints: Sendable, Hashable {
    /// Above 0 and at most 8, as imgproxy's.
    public var dpr: Double?
    /// Device pixels, 1 to 100000.
    public var width: Int?

    /// The header names the answer varies by, in imgproxy's spelling.
    public static let varyNames = "Sec-Ch-Dpr, Dpr, Sec-Ch-Width, Width"
    static let maxDPR = 8.0

    public init(dpr: Double? = nil, width: Int? = nil) {
        self.dpr = dpr
        self.width = width
    }

    /// Reads the hints from a request's header fields (by lower-case name):
    /// for each, the first that is a number in range; others are ignored,
    /// as imgproxy ignores them.
    public init(field: (String) -> String?) {
        for name in ["sec-ch-dpr", "dpr"] {
            if let text = field(name)?.trimmingCharacters(in: .whitespaces), let value = Double(text), value.isFinite,
               value > 0, value <= Self.maxDPR {
                dpr = value
                break
            }
        }
        for name in ["sec-ch-width", "width"] {
            if let text = field(name)?.trimmingCharacters(in: .whitespaces), let value = Int(text), value > 0, StepRanges.side.contains(value) {
                width = value
                break
            }
        }
    }

    public var isEmpty: Bool { dpr == nil && width == nil }

    /// The width in CSS pixels at the hinted ratio, as imgproxy rounds it.
    /// Worked in Double and kept to 1...100000 before it is made an Int:
    /// a ratio near 0 would otherwise overflow it.
    var cssWidth: Int? {
        width.map { width in
            let css = (Double(width) / (dpr ?? 1)).rounded()
            return css.isFinite ? Int(min(100_000, max(1, css))) : 100_000
        }
    }

    /// What the hints are, for the parsed-URL cache's key ("" for none).
    var key: String {
        isEmpty ? "" : "\(dpr.map { "\($0)" } ?? "-")/\(width.map(String.init) ?? "-")"
    }
}
