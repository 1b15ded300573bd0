import Foundation

extension String {
    /// The names of a comma-separated setting, each trimmed of spaces, the
    /// empty ones left out (`"a, b,,c"` is a, b and c), as imgproxy reads
    /// its lists.
    func commaList(lowercased: Bool = false) -> [String] {
        split(separator: ",").compactMap { part in
            let name = part.trimmingCharacters(in: .whitespaces)
            return name.isEmpty ? nil : lowercased ? name.lowercased() : name
        }
    }
}
