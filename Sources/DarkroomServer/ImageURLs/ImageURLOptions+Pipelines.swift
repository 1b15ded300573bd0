import Darkroom

/// imgproxy Pro's chained pipelines: a `-` segment between option groups
/// starts a pipeline that takes the result of the one before. Each
/// pipeline's steps run in imgproxy's order; the answer's own options
/// (format, quality, limits, name, ...) are read from the whole URL, a
/// later one over an earlier.
extension ImageURLOptions {
    /// The most pipelines one URL may chain; a server may allow fewer
    /// (imgproxy Pro's `IMGPROXY_MAX_CHAINED_PIPELINES`, unbounded there).
    public static let maxPipelines = 16

    /// An option segment and the presets it came from, innermost last
    /// (none: the URL's own).
    struct Segment {
        var text: String
        var presets: [String] = []
    }

    /// The segments of each pipeline. A preset that chains pipelines lays
    /// its first where it is used and the others on the pipelines after,
    /// before their own segments, as Pro merges them.
    static func pipelines(_ segments: [String], context: Context) throws(ImageURLError) -> [[Segment]] {
        var groups: [[Segment]] = [[]]
        var current = 0
        for segment in segments {
            if segment == "-" {
                current += 1
                if groups.count <= current { groups.append([]) }
                continue
            }
            let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            let names = Array(parts.dropFirst())
            guard parts[0] == "pr" || parts[0] == "preset",
                  names.contains(where: { context.presets[$0]?.split(separator: "/").contains("-") == true })
            else {
                groups[current].append(Segment(text: segment))
                continue
            }
            for name in names {
                guard let definition = context.presets[name] else { throw .init("unknown preset '\(name)'") }
                let chained = definition.split(separator: "/", omittingEmptySubsequences: false).split(separator: "-", omittingEmptySubsequences: false)
                for (offset, group) in chained.enumerated() {
                    while groups.count <= current + offset { groups.append([]) }
                    groups[current + offset] += group.map { Segment(text: String($0), presets: [name]) }
                }
            }
        }
        let most = min(maxPipelines, context.maxPipelines > 0 ? context.maxPipelines : maxPipelines)
        guard groups.count <= most else { throw .init("the URL chains \(groups.count) pipelines; at most \(most) here") }
        return groups
    }

    /// One pipeline's options. The first starts from the client's hints
    /// and the `default` preset, as a URL's options do.
    init(pipeline: [Segment], context: Context, first: Bool) throws(ImageURLError) {
        if first {
            returnAttachment = context.returnsAttachment
            enforceThumbnail = context.enforcesThumbnail
            if let hints = context.clientHints {
                if let dpr = hints.dpr { self.dpr = dpr }
                if let width = hints.cssWidth { self.width = width }
            }
            if context.presets[Self.defaultPreset] != nil {
                try apply("pr:\(Self.defaultPreset)", context: context, using: [])
            }
        }
        for segment in pipeline {
            try apply(segment.text, context: context, using: segment.presets)
        }
    }
}
