import DarkroomImaging

/// The font families text watermarks may name: read once, when first
/// needed (`serve` asks at start), from what Pango finds installed. A
/// family not among them is refused rather than silently drawn in another.
public enum FontFamilies {
    /// fontconfig's generic names, which always resolve to some font.
    static let generic: Set<String> = ["sans", "sans-serif", "serif", "monospace", "mono", "cursive", "fantasy", "system-ui", "emoji", "math"]

    /// Installed families, lowercased.
    private static let installed: Set<String> = Set(TextMarkup.installedFamilies().map { $0.lowercased() })

    /// The installed families, sorted.
    public static var names: [String] {
        TextMarkup.installedFamilies().sorted()
    }

    /// Whether every family `name` lists (comma-separated, as Pango reads
    /// a font description) is installed or generic.
    static func isInstalled(_ name: String) -> Bool {
        name.split(separator: ",").allSatisfy { part in
            let family = part.trimmingCharacters(in: .whitespaces).lowercased()
            return family.isEmpty || generic.contains(family) || installed.contains(family)
        }
    }

    /// A few installed families, for an error that names what there is.
    static var sample: String {
        let some = names.prefix(8)
        return some.isEmpty ? "no fonts are installed" : "installed: " + some.joined(separator: ", ") + (names.count > 8 ? ", ..." : "")
    }
}
