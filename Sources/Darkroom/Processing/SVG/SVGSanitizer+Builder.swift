import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

extension SVGSanitizer {
    // MARK: - Rebuilding the document

    /// Receives parser events and writes the sanitized document as it goes.
    final class Builder: NSObject, XMLParserDelegate {
        /// libxml2 warnings that do not make a document unsafe or ill-formed
        /// (odd xml:lang or xml:space values, relative namespace URIs, ...).
        static let ignorableWarnings: Set<Int> = [93, 97, 98, 99, 100, 102]

        let maxDepth: Int
        private(set) var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        private(set) var failure: Failure?
        private(set) var finishedRoot = false
        /// The root element's attributes, for its intrinsic size.
        private(set) var rootAttributes: [String: String] = [:]

        private var depth = 0
        /// Namespace declarations of the open elements that have any, innermost
        /// last, so that prefixes can be resolved although the parser does not do
        /// it for us. Sparse, so deep nesting does not make lookups quadratic.
        private var scopes: [(depth: Int, map: [String: String])] = []
        /// Depth of the removed element whose subtree is being skipped.
        private var skipUntil: Int?
        /// A start tag has been written but not yet closed with '>' or '/>'.
        private var pendingOpen = false
        /// A <style> element is held back until its text can be checked.
        private var style: (depth: Int, name: String, attrs: [(String, String)], text: String)?
        /// Element names of the open, written elements, for end tags.
        private var written: [String] = []

        /// What the document's data: images have used of their limits.
        let embedded: EmbeddedImageBudget

        init(maxDepth: Int, embedded: EmbeddedImageLimits) {
            self.maxDepth = maxDepth
            self.embedded = EmbeddedImageBudget(embedded)
            out.reserveCapacity(4096)
        }

        private func fail(_ parser: XMLParser, _ failure: Failure) {
            if self.failure == nil { self.failure = failure }
            parser.abortParsing()
        }

        private func namespace(ofPrefix prefix: String) -> String? {
            if prefix == "xml" { return "http://www.w3.org/XML/1998/namespace" }
            for scope in scopes.reversed() {
                if let uri = scope.map[prefix] { return uri }
            }
            return nil
        }

        static func split(_ qname: String) -> (prefix: String, local: String) {
            guard let colon = qname.firstIndex(of: ":") else { return ("", qname) }
            return (String(qname[..<colon]), String(qname[qname.index(after: colon)...]))
        }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String]) {
            guard failure == nil else { return }
            depth += 1
            // Hostile inputs nest thousands of groups to exhaust renderers.
            if depth > maxDepth {
                fail(parser, Failure(.tooDeep, "the SVG nests elements deeper than \(maxDepth)"))
                return
            }

            var scope: [String: String] = [:]
            for (name, value) in attributeDict {
                if name == "xmlns" { scope[""] = value }
                else if name.hasPrefix("xmlns:") { scope[String(name.dropFirst(6))] = value }
            }
            if !scope.isEmpty { scopes.append((depth, scope)) }

            let (prefix, local) = Self.split(elementName)
            let uri = namespace(ofPrefix: prefix)
            let lowerLocal = local.lowercased()

            if depth == 1 {
                rootAttributes = attributeDict
                guard local == "svg" else {
                    fail(parser, Failure(.notSVG, "the document's root is <\(elementName)>, not <svg>"))
                    return
                }
                if let uri, !uri.isEmpty, uri != SVGSanitizer.svgNamespace {
                    fail(parser, Failure(.notSVG, "the document's root <\(elementName)> is in namespace \(uri), not the SVG namespace"))
                    return
                }
            }

            if skipUntil != nil { return }
            // A <style> holds text only; anything nested in it is dropped.
            if style != nil || removesElement(lowerLocal, namespace: uri, attributes: attributeDict) {
                skipUntil = depth
                return
            }

            let attrs = keptAttributes(attributeDict, element: lowerLocal)
            if lowerLocal == "style" {
                style = (depth, elementName, attrs, "")
                return
            }
            closePendingTag()
            writeStartTag(elementName, attrs)
            pendingOpen = true
            written.append(elementName)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?) {
            guard failure == nil else { return }
            defer {
                if scopes.last?.depth == depth { scopes.removeLast() }
                depth -= 1
                if depth == 0 { finishedRoot = true }
            }
            if let skip = skipUntil {
                if skip == depth { skipUntil = nil }
                return
            }
            if let held = style, held.depth == depth {
                style = nil
                // Ordinary styling is kept; a sheet that could load anything is dropped whole.
                guard SVGSanitizer.isSafeCSS(held.text, isStyleSheet: true, admits: embedded.admits) else { return }
                closePendingTag()
                writeStartTag(held.name, held.attrs)
                if held.text.isEmpty {
                    out += "/>"
                } else {
                    out += ">"
                    appendEscapedText(held.text)
                    out += "</\(held.name)>"
                }
                return
            }
            let name = written.removeLast()
            if pendingOpen {
                out += "/>"
                pendingOpen = false
            } else {
                out += "</\(name)>"
            }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            appendText(string)
        }

        func parser(_ parser: XMLParser, foundIgnorableWhitespace whitespaceString: String) {
            appendText(whitespaceString)
        }

        // CDATA is written back as escaped text: same content, one less syntax to get right.
        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            appendText(String(decoding: CDATABlock, as: UTF8.self))
        }

        // Comments and processing instructions (e.g. xml-stylesheet) are dropped
        // by not implementing their callbacks.

        // Any DTD declaration means a DTD got past the byte check: stop.
        func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
            fail(parser, Failure(.dtd, "the SVG declares a DTD (entities are not allowed)"))
        }

        func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String,
                    publicID: String?, systemID: String?) {
            fail(parser, Failure(.dtd, "the SVG declares a DTD (entities are not allowed)"))
        }

        func parser(_ parser: XMLParser, foundUnparsedEntityDeclarationWithName name: String,
                    publicID: String?, systemID: String?, notationName: String?) {
            fail(parser, Failure(.dtd, "the SVG declares a DTD (entities are not allowed)"))
        }

        func parser(_ parser: XMLParser, foundAttributeDeclarationWithName attributeName: String,
                    forElement elementName: String, type: String?, defaultValue: String?) {
            fail(parser, Failure(.dtd, "the SVG declares a DTD (attribute declarations are not allowed)"))
        }

        func parser(_ parser: XMLParser, foundElementDeclarationWithName elementName: String, model: String) {
            fail(parser, Failure(.dtd, "the SVG declares a DTD (element declarations are not allowed)"))
        }

        func parser(_ parser: XMLParser, foundNotationDeclarationWithName name: String,
                    publicID: String?, systemID: String?) {
            fail(parser, Failure(.dtd, "the SVG declares a DTD (notation declarations are not allowed)"))
        }

        // Called for every entity reference the parser cannot resolve itself.
        func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
            fail(parser, Failure(.notWellFormed, "the SVG is not well-formed XML: it references the undefined entity &\(name); at line \(parser.lineNumber)"))
            return nil
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            guard failure == nil else { return }
            let code = (parseError as NSError).code
            if Self.ignorableWarnings.contains(code) { return }
            // The parser runs in recovery mode and would carry on after this;
            // a sanitizer must not guess what a broken document meant.
            fail(parser, Failure(.notWellFormed, "the SVG is not well-formed XML: \(SVGSanitizer.describeParserError(code)) at line \(parser.lineNumber)"))
        }

        private func removesElement(_ local: String, namespace uri: String?, attributes: [String: String]) -> Bool {
            if SVGSanitizer.removedElements.contains(local) { return true }
            if let uri, SVGSanitizer.removedNamespaces.contains(uri) { return true }
            if SVGSanitizer.isTooCostly(local, attributes: attributes) { return true }
            if SVGSanitizer.animationElements.contains(local),
               let target = attributes["attributeName"] {
                let targetLocal = Self.split(target.trimmingCharacters(in: .whitespacesAndNewlines)).local.lowercased()
                if targetLocal == "href" || targetLocal.hasPrefix("on") { return true }
            }
            return false
        }

        private func keptAttributes(_ attributes: [String: String], element: String) -> [(String, String)] {
            var kept: [(String, String)] = []
            for (name, value) in attributes {
                // Namespace declarations keep prefixes such as xlink: meaningful.
                if name == "xmlns" || name.hasPrefix("xmlns:") {
                    kept.append((name, value))
                    continue
                }
                let lowerLocal = Self.split(name).local.lowercased()
                // Event handlers, in any namespace and any case.
                if lowerLocal.hasPrefix("on") { continue }
                // xml:base would make even "#a" resolve against another document.
                if name == "xml:base" { continue }
                if lowerLocal == "href" {
                    if SVGSanitizer.isSafeHref(value, element: element, admits: embedded.admits) { kept.append((name, value)) }
                    continue
                }
                // Presentation attributes and style="" are CSS: fill="url(http://...)".
                if !SVGSanitizer.isSafeCSS(value, isStyleSheet: false, admits: embedded.admits) { continue }
                kept.append((name, SVGSanitizer.boundedFilterValue(value, attribute: lowerLocal, element: element)))
            }
            // The parser hands attributes over in a dictionary; sorting keeps the
            // output deterministic, with namespace declarations first.
            return kept.sorted { a, b in
                let an = a.0 == "xmlns" || a.0.hasPrefix("xmlns:")
                let bn = b.0 == "xmlns" || b.0.hasPrefix("xmlns:")
                if an != bn { return an }
                return a.0 < b.0
            }
        }

        private func appendText(_ text: String) {
            guard failure == nil, skipUntil == nil, depth > 0 else { return }
            if style != nil {
                style!.text += text
                return
            }
            closePendingTag()
            appendEscapedText(text)
        }

        private func closePendingTag() {
            if pendingOpen {
                out += ">"
                pendingOpen = false
            }
        }

        private func writeStartTag(_ name: String, _ attrs: [(String, String)]) {
            out += "<" + name
            for (attr, value) in attrs {
                out += " " + attr + "=\""
                appendEscaped(value, inAttribute: true)
                out += "\""
            }
        }

        private func appendEscapedText(_ text: String) {
            appendEscaped(text, inAttribute: false)
        }

        /// Escapes markup characters; in attributes also quotes and the
        /// whitespace characters the parser would otherwise normalize to spaces.
        private func appendEscaped(_ text: String, inAttribute: Bool) {
            for scalar in text.unicodeScalars {
                switch scalar {
                case "&": out += "&amp;"
                case "<": out += "&lt;"
                case ">": out += "&gt;"
                case "\r": out += "&#13;"
                case "\"" where inAttribute: out += "&quot;"
                case "\n" where inAttribute: out += "&#10;"
                case "\t" where inAttribute: out += "&#9;"
                default: out.unicodeScalars.append(scalar)
                }
            }
        }
    }
}
