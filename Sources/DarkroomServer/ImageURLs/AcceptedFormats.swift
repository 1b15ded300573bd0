package import Darkroom

/// What a client's Accept header allows, among the formats Darkroom writes.
///
/// Each media range counts with its q-value (`image/avif;q=0` refuses AVIF);
/// a format is taken when its own type, else `image/*`, else `*/*` has a
/// q-value above 0. AVIF and WebP are chosen for a URL without a format
/// only when named; otherwise the source's format is kept only when the
/// client takes it (see ``OutputOptions/acceptedFormats``).
package struct AcceptedFormats: Hashable, Sendable {
    /// AVIF, else WebP, when the header names it with q > 0.
    package let preferred: ImageFormat?
    /// The formats taken; nil: no header, or none that says anything about
    /// images: any.
    package let accepted: Set<ImageFormat>?

    package init(_ header: String?) {
        guard let header, !header.isEmpty else {
            preferred = nil
            accepted = nil
            return
        }
        var named: [String: Double] = [:]
        for range in header.split(separator: ",") {
            let parts = range.split(separator: ";")
            guard let first = parts.first else { continue }
            let type = first.trimmingCharacters(in: .whitespaces).lowercased()
            guard !type.isEmpty else { continue }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "q" else { continue }
                // A q-value that is not a number in 0...1 refuses the range
                // rather than guessing.
                let value = Double(pair[1].trimmingCharacters(in: .whitespaces)) ?? 0
                q = value.isFinite && (0...1).contains(value) ? value : 0
            }
            // The most specific mention wins; among equals, the first.
            if named[type] == nil { named[type] = q }
        }
        func takes(_ format: ImageFormat) -> Bool {
            (named[format.mimeType] ?? named["image/*"] ?? named["*/*"] ?? 0) > 0
        }
        if (named["image/avif"] ?? 0) > 0 {
            preferred = .avif
        } else if (named["image/webp"] ?? 0) > 0 {
            preferred = .webp
        } else {
            preferred = nil
        }
        let taken = Set(ImageFormat.webFormats.filter(takes))
        accepted = taken.isEmpty ? nil : taken
    }

    /// Part of the parsed-URL cache's key: requests that would be answered
    /// in different formats are different entries.
    package var key: String {
        let taken = accepted.map { set in ImageFormat.webFormats.filter(set.contains).map(\.rawValue).joined(separator: "+") } ?? "*"
        return "\(preferred?.rawValue ?? "-")/\(taken)"
    }
}
