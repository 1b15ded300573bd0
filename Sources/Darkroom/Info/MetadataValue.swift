/// A metadata value as JSON carries it: text, a number, a list or named
/// values, for the IPTC, Photoshop and XMP records of an ``ImageInfo``.
public indirect enum MetadataValue: Sendable, Hashable, Codable {
    case text(String)
    case number(Double)
    case list([MetadataValue])
    case record([String: MetadataValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .text(text)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let list = try? container.decode([MetadataValue].self) {
            self = .list(list)
        } else {
            self = .record(try container.decode([String: MetadataValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .text(let text): try container.encode(text)
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { try container.encode(Int(number)) } else { try container.encode(number) }
        case .list(let list): try container.encode(list)
        case .record(let record): try container.encode(record)
        }
    }
}
