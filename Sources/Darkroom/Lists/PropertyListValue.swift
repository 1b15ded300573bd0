import Foundation

/// A property list's value, as `PropertyListDecoder` reads it.
///
/// `PropertyListSerialization` bridges a binary list's objects to `Any`
/// through swift-corelibs-foundation, and a binary list holding a set
/// crashed the process there (the `list` fuzz target found it); the
/// decoder reads the same bytes into plain Swift values. What a photo list
/// never holds (sets, dates, data, lists nested deeper than
/// ``maxDepth``) is kept as ``other``, to be refused by what reads it.
enum PropertyListValue: Decodable {
    case string(String)
    case number(NSNumber)
    case dictionary([String: PropertyListValue])
    case array([PropertyListValue])
    case other

    /// Deeper than any photo list goes, and shallow enough for a hostile
    /// list (a binary one can even refer to itself) never to reach the
    /// stack's end.
    static let maxDepth = 16

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maxDepth else {
            self = .other
            return
        }
        if let value = try? decoder.singleValueContainer() {
            if let text = try? value.decode(String.self) { self = .string(text); return }
            if let flag = try? value.decode(Bool.self) { self = .number(NSNumber(value: flag)); return }
            if let integer = try? value.decode(Int.self) { self = .number(NSNumber(value: integer)); return }
            if let real = try? value.decode(Double.self) { self = .number(NSNumber(value: real)); return }
        }
        if let keyed = try? decoder.container(keyedBy: Key.self) {
            var dictionary: [String: PropertyListValue] = [:]
            for key in keyed.allKeys { dictionary[key.stringValue] = try keyed.decode(PropertyListValue.self, forKey: key) }
            self = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var array: [PropertyListValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PropertyListValue.self)) }
            self = .array(array)
            return
        }
        self = .other
    }

    /// As `JSONSerialization` gives a value: `String`, `NSNumber`,
    /// `[String: Any]`, `[Any]`; ``other`` as `NSNull`.
    var foundationValue: Any {
        switch self {
        case .string(let text): text
        case .number(let number): number
        case .dictionary(let dictionary): dictionary.mapValues(\.foundationValue)
        case .array(let array): array.map(\.foundationValue)
        case .other: NSNull()
        }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
