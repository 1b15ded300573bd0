/// File names made from arbitrary text (photo names, URLs) that are safe on
/// any file system: no separators, no control or reserved characters, no
/// leading dots, not too long, and unique within a folder.
public enum SafeFileName {
    /// The longest stem kept, in bytes of UTF-8, leaving room for a suffix.
    static let maxStemBytes = 120

    /// A safe stem (no extension) for `text`.
    public static func make(_ text: String) -> String {
        let forbidden = Set("/\\:*?\"<>|")
        var result = ""
        for character in text {
            if character.isNewline || character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) || forbidden.contains(character) {
                result.append("_")
            } else {
                result.append(character)
            }
        }
        result = result.trimmingLeading { $0 == "." || $0 == " " }
        while result.last == "." || result.last == " " { result.removeLast() }
        while result.utf8.count > maxStemBytes { result.removeLast() }
        if result.isEmpty { result = "image" }
        // Names Windows reserves, for folders that travel.
        let reserved = Set(["con", "prn", "aux", "nul"] + (1...9).flatMap { ["com\($0)", "lpt\($0)"] })
        if reserved.contains(result.lowercased()) { result += "_" }
        return result
    }

    /// `stem`, or `stem-2`, `stem-3`... whichever is not in `used` yet
    /// (compared without case, for case-insensitive file systems).
    public static func unique(_ stem: String, in used: inout Set<String>) -> String {
        var candidate = stem
        var number = 2
        while used.contains(candidate.lowercased()) {
            candidate = "\(stem)-\(number)"
            number += 1
        }
        used.insert(candidate.lowercased())
        return candidate
    }
}

extension String {
    fileprivate func trimmingLeading(while predicate: (Character) -> Bool) -> String {
        String(drop(while: predicate))
    }
}
