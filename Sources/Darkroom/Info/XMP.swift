import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XMP packet's properties by namespace prefix, as imgproxy Pro's
/// `xmp`: `{"dc": {"creator": ["..."]}, "aux": {"Lens": "..."}}`. Ordered
/// arrays and bags are lists, alternatives their default text, structures
/// records. Bytes from strangers: anything that could expand entities or
/// load a DTD is refused before parsing (as for SVG), and the packet's
/// size, depth and element count are bounded; a packet that fails any of
/// that, or does not parse, gives nothing.
enum XMP {
    static let maxBytes = 1 << 20
    static let maxDepth = 64
    static let maxElements = 20_000

    static func read(_ packet: [UInt8]) -> [String: MetadataValue] {
        guard packet.count <= maxBytes,
              (try? SVGSanitizer.checkRawBytes(packet)) != nil,
              SVGSanitizer.firstIndex(of: Array("<!DOCTYPE".utf8), in: packet, from: 0) == nil else { return [:] }
        let reader = TreeReader()
        let parser = XMLParser(data: Data(packet))
        parser.shouldResolveExternalEntities = false
        parser.delegate = reader
        guard parser.parse(), !reader.overflowed else { return [:] }
        var result: [String: [String: MetadataValue]] = [:]
        for description in reader.root.all(named: "rdf:Description") {
            for (prefix, name, value) in properties(of: description) {
                result[prefix, default: [:]][name] = value
            }
        }
        return result.mapValues { .record($0) }
    }

    /// A description's properties: its own prefixed attributes, then its
    /// property elements.
    private static func properties(of description: Node) -> [(String, String, MetadataValue)] {
        var found: [(String, String, MetadataValue)] = []
        for (name, value) in description.attributes.sorted(by: { $0.key < $1.key }) {
            if let (prefix, local) = split(name) { found.append((prefix, local, .text(value))) }
        }
        for child in description.children {
            if let (prefix, local) = split(child.name) { found.append((prefix, local, value(of: child))) }
        }
        return found
    }

    private static func value(of property: Node) -> MetadataValue {
        if let container = property.children.first(where: { ["rdf:Seq", "rdf:Bag", "rdf:Alt"].contains($0.name) }) {
            let items = container.children.filter { $0.name == "rdf:li" }
            if container.name == "rdf:Alt" {
                let chosen = items.first { $0.attributes["xml:lang"] == "x-default" } ?? items.first
                return chosen.map(value) ?? .text("")
            }
            return .list(items.map(value))
        }
        let nested = property.children.first { $0.name == "rdf:Description" }
        if nested != nil || property.attributes["rdf:parseType"] == "Resource" {
            var record: [String: MetadataValue] = [:]
            for (_, name, value) in properties(of: nested ?? property) { record[name] = value }
            return .record(record)
        }
        if let resource = property.attributes["rdf:resource"] { return .text(resource) }
        return .text(property.text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// "dc:creator" as ("dc", "creator"); nil for RDF's and XML's own
    /// names and namespace declarations.
    private static func split(_ name: String) -> (String, String)? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        let prefix = String(name[..<colon])
        guard !["rdf", "xml", "xmlns", "x"].contains(prefix) else { return nil }
        return (prefix, String(name[name.index(after: colon)...]))
    }

    final class Node {
        let name: String
        let attributes: [String: String]
        var children: [Node] = []
        var text = ""

        init(name: String, attributes: [String: String]) {
            self.name = name
            self.attributes = attributes
        }

        func all(named wanted: String) -> [Node] {
            // Descriptions nested as structure values belong to their property.
            if name == wanted { return [self] }
            return children.flatMap { $0.all(named: wanted) }
        }
    }

    /// Builds the element tree, bounded in depth and size.
    private final class TreeReader: NSObject, XMLParserDelegate {
        let root = Node(name: "", attributes: [:])
        private var stack: [Node] = []
        private var elements = 0
        var overflowed = false

        override init() {
            super.init()
            stack = [root]
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String] = [:]) {
            elements += 1
            guard elements <= XMP.maxElements, stack.count <= XMP.maxDepth else {
                overflowed = true
                parser.abortParsing()
                return
            }
            let node = Node(name: qualifiedName ?? elementName, attributes: attributes)
            stack.last?.children.append(node)
            stack.append(node)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            if stack.count > 1 { stack.removeLast() }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard let node = stack.last, node.text.utf8.count < XMP.maxBytes else { return }
            node.text += string
        }
    }
}
