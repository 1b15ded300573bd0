import Foundation

/// Photoshop's image resource block (a JPEG's APP13, which libvips keeps
/// as "iptc-data"): its IPTC-IIM datasets by name, as imgproxy Pro's
/// `iptc`, and its resolution record, as Pro's `photoshop`. Bytes from
/// strangers: every length is checked against what is left, and a
/// malformed block gives what was read before the fault.
enum IPTC {
    /// Datasets of the application record (2) by number, with whether the
    /// standard lets them repeat (those are lists).
    static let datasets: [UInt8: (name: String, repeats: Bool)] = [
        3: ("Object Type Reference", false), 4: ("Object Attribute Reference", true), 5: ("Name", false),
        7: ("Edit Status", false), 10: ("Urgency", false), 12: ("Subject Reference", true), 15: ("Category", false),
        20: ("Supplemental Categories", true), 22: ("Fixture Identifier", false), 25: ("Keywords", true),
        26: ("Content Location Code", true), 27: ("Content Location Name", true), 30: ("Release Date", false),
        35: ("Release Time", false), 37: ("Expiration Date", false), 38: ("Expiration Time", false),
        40: ("Special Instructions", false), 42: ("Action Advised", true), 45: ("Reference Service", true),
        47: ("Reference Date", true), 50: ("Reference Number", true), 55: ("Date Created", false),
        60: ("Time Created", false), 62: ("Digital Creation Date", false), 63: ("Digital Creation Time", false),
        65: ("Originating Program", false), 70: ("Program Version", false), 75: ("Object Cycle", false),
        80: ("Byline", true), 85: ("Byline Title", true), 90: ("City", false), 92: ("Sub Location", false),
        95: ("Province State", false), 100: ("Country Code", false), 101: ("Country Name", false),
        103: ("Original Transmission Reference", false), 105: ("Headline", false), 110: ("Credit", false),
        115: ("Source", false), 116: ("Copyright Notice", false), 118: ("Contact", true), 120: ("Caption", false),
        121: ("Local Caption", false), 122: ("Caption Writer", true), 130: ("Image Type", false),
        131: ("Image Orientation", false), 135: ("Language Identifier", false),
    ]

    /// The IPTC datasets and the Photoshop records of `block`, either empty
    /// when absent.
    static func read(_ block: [UInt8]) -> (iptc: [String: MetadataValue], photoshop: [String: MetadataValue]) {
        var iptc: [String: MetadataValue] = [:], photoshop: [String: MetadataValue] = [:]
        var offset = 0
        let header = Array("Photoshop 3.0\0".utf8)
        if block.starts(with: header) { offset = header.count }
        // Resources: "8BIM", a 2-byte id, a Pascal name padded to even, a
        // 4-byte size, the data padded to even.
        while offset + 12 <= block.count, block[offset..<offset + 4].elementsEqual("8BIM".utf8) {
            let id = Int(block[offset + 4]) << 8 | Int(block[offset + 5])
            var cursor = offset + 6
            let nameLength = Int(block[cursor])
            cursor += (nameLength + 2) & ~1
            guard cursor + 4 <= block.count else { break }
            let size = Int(block[cursor]) << 24 | Int(block[cursor + 1]) << 16 | Int(block[cursor + 2]) << 8 | Int(block[cursor + 3])
            cursor += 4
            guard size >= 0, size <= block.count - cursor else { break }
            let data = Array(block[cursor..<cursor + size])
            switch id {
            case 0x0404: iptc.merge(datasets(data)) { old, _ in old }
            case 0x03ED: if let resolution = resolution(data) { photoshop["resolution"] = .record(resolution) }
            default: break
            }
            offset = cursor + ((size + 1) & ~1)
        }
        // A bare IIM stream (no Photoshop wrapper) starts with its marker.
        if iptc.isEmpty, photoshop.isEmpty, block.first == 0x1C { iptc = datasets(block) }
        return (iptc, photoshop)
    }

    /// Record 2's datasets: tag 0x1C, record, dataset, a 2-byte length
    /// (the extended form, with the top bit set, is skipped).
    static func datasets(_ bytes: [UInt8]) -> [String: MetadataValue] {
        var values: [String: [String]] = [:]
        var offset = 0
        while offset + 5 <= bytes.count, bytes[offset] == 0x1C {
            let record = bytes[offset + 1], number = bytes[offset + 2]
            let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
            offset += 5
            guard length & 0x8000 == 0, length <= bytes.count - offset else { break }
            if record == 2, let dataset = datasets[number] {
                let slice = bytes[offset..<offset + length]
                let text = String(validating: slice, as: UTF8.self) ?? String(slice.map { Character(Unicode.Scalar($0)) })
                values[dataset.name, default: []].append(text.trimmingCharacters(in: .controlCharacters))
            }
            offset += length
        }
        var result: [String: MetadataValue] = [:]
        for dataset in datasets.values {
            guard let texts = values[dataset.name] else { continue }
            result[dataset.name] = dataset.repeats ? .list(texts.map(MetadataValue.text)) : .text(texts[0])
        }
        return result
    }

    /// Photoshop's ResolutionInfo: 16.16 resolutions with their units.
    static func resolution(_ data: [UInt8]) -> [String: MetadataValue]? {
        guard data.count >= 16 else { return nil }
        func fixed(_ at: Int) -> Double {
            Double(UInt32(data[at]) << 24 | UInt32(data[at + 1]) << 16 | UInt32(data[at + 2]) << 8 | UInt32(data[at + 3])) / 65536
        }
        func short(_ at: Int) -> Int { Int(data[at]) << 8 | Int(data[at + 1]) }
        func resolutionUnit(_ value: Int) -> String { value == 2 ? "cm" : "inches" }
        func sizeUnit(_ value: Int) -> String {
            switch value {
            case 2: "cm"
            case 3: "points"
            case 4: "picas"
            case 5: "columns"
            default: "inches"
            }
        }
        return [
            "XResolution": .number(fixed(0)), "XResolutionUnit": .text(resolutionUnit(short(4))), "WidthUnit": .text(sizeUnit(short(6))),
            "YResolution": .number(fixed(8)), "YResolutionUnit": .text(resolutionUnit(short(12))), "HeightUnit": .text(sizeUnit(short(14))),
        ]
    }
}
