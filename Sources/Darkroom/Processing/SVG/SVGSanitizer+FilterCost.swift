/// Filter primitives whose cost an attribute multiplies, bounded before
/// anything is drawn. librsvg draws a filter inside one libvips tile, where
/// no kill switch reaches; the drawing child's deadline ends it, but a
/// 280-byte `numOctaves="2000000000"` should not cost a child its whole
/// deadline.
extension SVGSanitizer {
    /// Octaves of `feTurbulence` past this add nothing visible (each halves
    /// the last one's amplitude); Firefox draws at most 10 too.
    static let maxTurbulenceOctaves = 10

    /// `feMorphology` looks at (2r + 1)² pixels for each one it writes.
    static let maxMorphologyRadius = 64

    /// `feConvolveMatrix` multiplies order² pixels for each one it writes;
    /// larger kernels are dropped with their element (a kernel cut short
    /// would no longer match its matrix).
    static let maxConvolveOrder = 16

    /// The value to write for a filter attribute whose cost it sets, cut
    /// to its bound; `value` itself for any other attribute.
    static func boundedFilterValue(_ value: String, attribute: String, element: String) -> String {
        switch (element, attribute) {
        case ("feturbulence", "numoctaves"):
            guard let octaves = Double(value.trimmingCharacters(in: .whitespaces)), octaves > Double(maxTurbulenceOctaves) else { return value }
            return "\(maxTurbulenceOctaves)"
        case ("femorphology", "radius"):
            let radii = numbers(in: value)
            guard radii.contains(where: { $0 > Double(maxMorphologyRadius) }) else { return value }
            return radii.map { String(min($0, Double(maxMorphologyRadius))) }.joined(separator: " ")
        default:
            return value
        }
    }

    /// Whether a filter primitive costs more than is drawn at all.
    static func isTooCostly(_ element: String, attributes: [String: String]) -> Bool {
        guard element == "feconvolvematrix", let order = attributes["order"] else { return false }
        return numbers(in: order).contains { !($0 <= Double(maxConvolveOrder)) }
    }

    /// The numbers of a list separated by spaces or commas; NaN for a
    /// word that is not one.
    static func numbers(in list: String) -> [Double] {
        list.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "\t" || $0 == "\n" || $0 == "\r" }).map { Double($0) ?? .nan }
    }
}
