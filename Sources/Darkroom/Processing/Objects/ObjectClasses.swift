/// Which detected objects an option uses, and how much each counts, as
/// imgproxy Pro's class lists: `face`, `face:cat` (weight 1 each), or with
/// weights (`objw:all:2:face:10`). `all` stands for every class; an empty
/// list selects every object. Darkroom's detector knows one class, `face`:
/// another name is accepted, as Pro accepts a class its model lacks, and
/// matches nothing.
public struct ObjectClasses: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public var name: String
        public var weight: Double

        public init(name: String, weight: Double = 1) {
            self.name = name
            self.weight = weight
        }
    }

    public var entries: [Entry]

    public init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    /// Names, each of weight 1.
    public init(names: [String]) {
        self.init(names.map { Entry(name: $0) })
    }

    /// Every object, each of weight 1.
    public static let all = ObjectClasses()

    /// The most names one list takes, and the longest name.
    public static let maxEntries = 32
    public static let maxNameLength = 64

    /// The weight of an object of class `name`, or nil when the list does
    /// not select it: its own entry, else `all`'s, else 1 where the list
    /// names no class but weights (`objw`) or none at all.
    public func weight(of name: String) -> Double? {
        if let entry = entries.last(where: { $0.name == name }) { return entry.weight }
        if let all = entries.last(where: { $0.name == "all" }) { return all.weight }
        return entries.isEmpty ? 1 : nil
    }

    /// Whether the list can be used: names of letters, digits, `_` or `-`,
    /// weights above 0 and finite.
    public var isValid: Bool {
        entries.count <= Self.maxEntries && entries.allSatisfy { entry in
            !entry.name.isEmpty && entry.name.utf8.count <= Self.maxNameLength
                && entry.name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
                && entry.weight.isFinite && entry.weight > 0 && entry.weight <= 1_000_000
        }
    }

    /// Stable text for cache keys: `name=weight`, joined by `:`.
    var identifier: String {
        entries.map { "\($0.name)=\(ImageOperation.format($0.weight))" }.joined(separator: ":")
    }

    init?(identifier: some StringProtocol) {
        var entries: [Entry] = []
        for part in identifier.split(separator: ":") {
            let pair = part.split(separator: "=")
            guard pair.count == 2, let weight = Double(pair[1]) else { return nil }
            entries.append(Entry(name: String(pair[0]), weight: weight))
        }
        self.init(entries)
        guard isValid else { return nil }
    }
}
