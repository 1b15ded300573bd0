package import Darkroom

/// What a client's Accept header allows, among the formats Darkroom writes.
///
/// Each media range counts with its q-value (`image/avif;q=0` refuses AVIF);
/// a format is taken when its own type, else `image/*`, else `*/*` has a
/// q-value above 0. JPEG XL, AVIF and WebP are chosen for a URL without a
/// format only when named, and as ``FormatNegotiation`` allows; otherwise the source's format is kept only when the
/// client takes it (see ``OutputOptions/acceptedFormats``).
package struct AcceptedFormats: Hashable, Sendable {
    /// The negotiable formats (JPEG XL, AVIF, WebP) the header names by
    /// their own type with q > 0: the ones an answer may be chosen in.
    package let named: Set<ImageFormat>
    /// The formats taken; nil: no header, or none that says anything about
    /// images: any.
    package let accepted: Set<ImageFormat>?

    package init(_ header: String?) {
        guard let header, !header.isEmpty else {
            accepted = nil
            named = []
            return
        }
        var qualities: [String: Double] = [:]
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
            if qualities[type] == nil { qualities[type] = q }
        }
        func takes(_ format: ImageFormat) -> Bool {
            (qualities[format.mimeType] ?? qualities["image/*"] ?? qualities["*/*"] ?? 0) > 0
        }
        named = Set(FormatNegotiation.negotiable.filter { (qualities[$0.mimeType] ?? 0) > 0 })
        let taken = Set(ImageFormat.webFormats.filter(takes))
        accepted = taken.isEmpty ? nil : taken
    }

    /// Part of the parsed-URL cache's key: requests that would be answered
    /// in different formats are different entries.
    package var key: String {
        let taken = accepted.map { set in ImageFormat.webFormats.filter(set.contains).map(\.rawValue).joined(separator: "+") } ?? "*"
        let names = FormatNegotiation.negotiable.filter(named.contains).map(\.rawValue).joined(separator: "+")
        return "\(names.isEmpty ? "-" : names)/\(taken)"
    }
}
