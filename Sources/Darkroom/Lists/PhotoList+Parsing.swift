public import Foundation

extension PhotoList {
    /// Reads a list from bytes: an XML or binary property list, or JSON, in
    /// any of these shapes:
    ///
    /// - a dictionary of names to image URLs (the seed's ClassicPhotos list);
    /// - an array of records with `name`, `icon` (image URL) and `download`
    ///   (a count, kept as detail), as in the seed's app list;
    /// - an array of `{ "name", "url" }` records.
    ///
    /// - Parameter origin: where the bytes came from, for error messages.
    /// - Throws: ``DarkroomError/Kind/invalidList``, saying what was wrong and where.
    public static func parse(_ data: Data, origin: String) throws(DarkroomError) -> PhotoList {
        let root: Any
        let format: String
        let head = data.prefix(64)
        if head.starts(with: Data("bplist".utf8)) || String(decoding: head, as: UTF8.self).contains("<plist") || String(decoding: head, as: UTF8.self).hasPrefix("<?xml") {
            format = "property list"
            if head.starts(with: Data("bplist".utf8)), let problem = BinaryPropertyListShape.problem(in: data) {
                throw invalid(origin, problem)
            }
            do {
                root = try PropertyListDecoder().decode(PropertyListValue.self, from: data).foundationValue
            } catch {
                throw invalid(origin, "is not a valid property list", underlying: "\(error)")
            }
        } else {
            format = "JSON"
            do {
                root = try JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)
            } catch {
                let what = data.isEmpty ? "is empty" : "is neither a property list nor valid JSON"
                throw invalid(origin, what, underlying: (error as NSError).userInfo["NSDebugDescription"].map { "\($0)" } ?? "\(error)")
            }
        }
        switch root {
        case let dictionary as [String: Any]:
            return try fromDictionary(dictionary, origin: origin)
        case let array as [Any]:
            return try fromArray(array, origin: origin)
        default:
            throw invalid(origin, "is a \(format) whose top level is neither a dictionary of names to URLs nor an array of records")
        }
    }

    private static func fromDictionary(_ dictionary: [String: Any], origin: String) throws(DarkroomError) -> PhotoList {
        var entries: [Entry] = []
        for (index, name) in dictionary.keys.sorted().enumerated() {
            guard let text = dictionary[name] as? String else {
                throw invalid(origin, "key '\(name)': the value should be a URL string, not \(describe(dictionary[name]!))")
            }
            entries.append(entry(id: index, name: name, urlText: text, detail: nil))
        }
        return PhotoList(entries: entries)
    }

    private static func fromArray(_ array: [Any], origin: String) throws(DarkroomError) -> PhotoList {
        var entries: [Entry] = []
        for (index, element) in array.enumerated() {
            guard let record = element as? [String: Any] else {
                throw invalid(origin, "entry \(index + 1): should be a record with 'name' and 'url' (or 'icon'), not \(describe(element))")
            }
            guard let name = record["name"] as? String, !name.isEmpty else {
                throw invalid(origin, "entry \(index + 1): has no 'name' text")
            }
            guard let urlText = (record["url"] ?? record["icon"]) as? String else {
                throw invalid(origin, "entry \(index + 1) ('\(name)'): has no 'url' or 'icon' text")
            }
            let detail = record["download"].map { value -> String in
                if let number = value as? NSNumber { return "\(number) downloads" }
                return "\(value)"
            }
            entries.append(entry(id: index, name: name, urlText: urlText, detail: detail))
        }
        return PhotoList(entries: entries)
    }

    private static func entry(id: Int, name: String, urlText: String, detail: String?) -> Entry {
        let trimmed = urlText.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(),
              ["http", "https"].contains(scheme) && !(url.host ?? "").isEmpty || scheme == LocalFileLoader.scheme && url.path.count > 1
        else {
            return Entry(id: id, name: name, url: nil, detail: detail, problem: "'\(urlText)' is not a valid http, https or local URL")
        }
        return Entry(id: id, name: name, url: url, detail: detail)
    }

    private static func describe(_ value: Any) -> String {
        switch value {
        case is [Any]: "an array"
        case is [String: Any]: "a dictionary"
        case is NSNumber: "a number"
        case is String: "text"
        case is NSNull: "null, or a date, data or a set"
        default: "\(type(of: value))"
        }
    }

    static func invalid(_ origin: String, _ what: String, underlying: String? = nil) -> DarkroomError {
        DarkroomError(.invalidList, "the photo list \(origin) \(what)", underlying: underlying)
    }
}
