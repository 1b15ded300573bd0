import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Darkroom

// MARK: - Helpers

private let limit = 1 << 20

private func sanitize(_ s: String, maxDepth: Int = 256) throws(SVGSanitizer.Failure) -> String {
    String(decoding: try SVGSanitizer.sanitized(Data(s.utf8), maxDepth: maxDepth, maxBytes: limit), as: UTF8.self)
}

private func failure(_ s: String, maxDepth: Int = 256, precheck: Bool = true) -> SVGSanitizer.Failure? {
    do {
        _ = try SVGSanitizer.sanitize(Data(s.utf8), maxDepth: maxDepth, maxBytes: 64 << 20, precheck: precheck)
        return nil
    } catch {
        return error
    }
}

/// Element names and attributes in document order, from an independent parse.
private final class Collector: NSObject, XMLParserDelegate {
    var elements: [(name: String, attrs: [String: String])] = []
    var text = ""
    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String]) {
        elements.append((elementName, attributeDict))
    }
    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
}

private func collect(_ s: String) -> Collector? {
    let c = Collector()
    let p = XMLParser(data: Data(s.utf8))
    p.delegate = c
    return p.parse() ? c : nil
}

/// A loopback TCP listener, to observe whether the parser tries to connect.
private final class Listener {
    let fd: Int32
    let port: UInt16

    init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = 0
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) }
        }
        listen(fd, 8)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) }
        }
        self.fd = fd
        self.port = UInt16(bigEndian: addr.sin_port)
    }

    /// True if a connection is waiting to be accepted.
    func wasConnected(waitingMs: Int32 = 300) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&p, 1, waitingMs) > 0
    }

    deinit { close(fd) }
}

private let passwdMarker = "root:x:0:0"

private let billionLaughs = """
<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<svg xmlns="http://www.w3.org/2000/svg"><text>&lol9;</text></svg>
"""

private func xxe(_ systemID: String) -> String {
    """
    <?xml version="1.0"?>
    <!DOCTYPE svg [ <!ENTITY x SYSTEM "\(systemID)"> ]>
    <svg xmlns="http://www.w3.org/2000/svg"><text>&x;</text></svg>
    """
}

/// The sanitizer on clean and hostile SVGs: what it keeps, what it
/// removes, and what it refuses before any entity or file is read.
@Suite struct SVGSanitizerTests {
// MARK: - Round trip

@Test func cleanSVGRoundTrips() throws {
    let input = """
    <?xml version="1.0" encoding="UTF-8"?>
    <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="200" height="100" viewBox="0 0 200 100">
      <defs>
        <linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient>
        <circle id="a" cx="10" cy="10" r="5"/>
      </defs>
      <style>.c { fill: url(#g); stroke: black }</style>
      <rect class="c" x="1" y="2" width="190" height="90" style="fill:rgb(0,0,0);stroke-width:5"/>
      <path d="M10 10 L 20 20 Z" fill="url(#g)"/>
      <use xlink:href="#a" x="50"/>
      <use href="#a" x="60"/>
      <image width="1" height="1" href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAAAAAA"/>
      <text x="5" y="50">Hello <tspan font-weight="bold">world</tspan></text>
    </svg>
    """
    let out = try sanitize(input)
    let before = try #require(collect(input))
    let after = try #require(collect(out))
    #expect(after.elements.map(\.name) == before.elements.map(\.name))
    for (a, b) in zip(after.elements, before.elements) {
        #expect(a.attrs == b.attrs, "attributes of <\(a.name)>")
    }
    #expect(out.contains("xmlns:xlink=\"http://www.w3.org/1999/xlink\""))
    #expect(out.contains("xlink:href=\"#a\""))
    #expect(out.contains("Hello <tspan"))
    // Sanitizing is idempotent.
    #expect(try sanitize(out) == out)
}

// MARK: - Active content

@Test func scriptRemovedWithSubtree() throws {
    let out = try sanitize("""
    <svg xmlns="http://www.w3.org/2000/svg"><script type="text/javascript"><![CDATA[ alert(1) ]]><g id="inside"/></script>\
    <svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(2)</svg:script><circle r="1"/></svg>
    """)
    #expect(!out.contains("script"))
    #expect(!out.contains("alert"))
    #expect(!out.contains("inside"))
    #expect(out.contains("<circle r=\"1\"/>"))
}

@Test func eventHandlersRemoved() throws {
    let out = try sanitize("""
    <svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><rect onclick="alert(2)" ONMOUSEOVER="alert(3)" \
    xmlns:x="urn:x" x:onfocus="alert(4)" width="5" opacity="0.5"/></svg>
    """)
    #expect(!out.contains("alert"))
    #expect(!out.lowercased().contains("on"+"load"))
    #expect(out.contains("width=\"5\""))
    #expect(out.contains("opacity=\"0.5\""))
}

@Test func foreignObjectAndHTMLRemoved() throws {
    let out = try sanitize("""
    <svg xmlns="http://www.w3.org/2000/svg"><foreignObject width="10" height="10">\
    <div xmlns="http://www.w3.org/1999/xhtml"><iframe src="javascript:alert(1)"/></div></foreignObject>\
    <g><html:img xmlns:html="http://www.w3.org/1999/xhtml" src="x" onerror="alert(2)"/>\
    <p xmlns="http://www.w3.org/1999/xhtml">hi</p><form action="javascript:alert(3)"/>\
    <xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd" parse="text"/></g></svg>
    """)
    #expect(!out.contains("foreignObject"))
    #expect(!out.contains("iframe"))
    #expect(!out.contains("img"))
    #expect(!out.contains("hi"))
    #expect(!out.contains("form"))
    #expect(!out.contains("include"))
    #expect(!out.contains("alert"))
    #expect(out.contains("<g/>"))
}

@Test func javascriptHrefRemoved() throws {
    let out = try sanitize("""
    <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\
    <a href="javascript:alert(1)"><rect width="1"/></a>\
    <a xlink:href=" &#10;JaVaScRiPt:alert(2)"><rect width="2"/></a>\
    <a href="&#106;avascript:alert(3)"><rect width="3"/></a>\
    <a href="data:text/html,&lt;script&gt;alert(4)&lt;/script&gt;"><rect width="4"/></a>\
    <image href="data:image/svg+xml;base64,PHN2Zz4="/>\
    <set attributeName="href" to="javascript:alert(5)"/>\
    <animate attributeName="xlink:href" values="javascript:alert(6)"/></svg>
    """)
    #expect(!out.lowercased().contains("javascript"))
    #expect(!out.contains("data:text"))
    #expect(!out.contains("svg+xml"))
    #expect(!out.contains("<set"))
    #expect(!out.contains("<animate"))
    #expect(out.components(separatedBy: "<a>").count == 5)
}

@Test func externalHrefsRemovedFragmentsKept() throws {
    let out = try sanitize("""
    <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">\
    <circle id="a" r="1"/>\
    <image id="i1" href="file:///etc/passwd"/>\
    <image id="i2" xlink:href="http://127.0.0.1/x.png"/>\
    <image id="i3" href="x.png"/>\
    <image id="i4" href="//example.com/x.png"/>\
    <use id="u1" href="#a"/>\
    <use id="u2" xlink:href="data:image/png;base64,AAAA"/>\
    <g xml:base="http://127.0.0.1/"><use id="u3" href="#a"/></g>\
    <rect id="r1" fill="url(http://127.0.0.1/p.svg#p)" stroke="url(#a)"/>\
    <rect id="r2" style="fill:u\\72l(http://127.0.0.1/)"/>\
    </svg>
    """)
    #expect(!out.contains("passwd"))
    #expect(!out.contains("127.0.0.1"))
    #expect(!out.contains("x.png"))
    #expect(!out.contains("AAAA"))
    #expect(out.contains("<use href=\"#a\" id=\"u1\"/>"))
    #expect(out.contains("<use href=\"#a\" id=\"u3\"/>"))
    #expect(out.contains("<rect id=\"r1\" stroke=\"url(#a)\"/>"))
    #expect(out.contains("<rect id=\"r2\"/>"))
    #expect(out.contains("<image id=\"i1\"/>"))
}

@Test func styleSheetsWithExternalResourcesRemoved() throws {
    let out = try sanitize("""
    <svg xmlns="http://www.w3.org/2000/svg">\
    <style>@import url(http://127.0.0.1/a.css);</style>\
    <style>@IMPORT "http://127.0.0.1/b.css";</style>\
    <style><![CDATA[ rect { background: url( 'file:///etc/passwd' ) } ]]></style>\
    <style>@font-face { font-family: f; src: url(http://127.0.0.1/f.woff) }</style>\
    <style>@\\69mport "http://127.0.0.1/c.css";</style>\
    <style><![CDATA[ .ok > rect { fill: url(#g); stroke: red } ]]></style></svg>
    """)
    #expect(!out.contains("127.0.0.1"))
    #expect(!out.contains("passwd"))
    #expect(!out.lowercased().contains("import"))
    #expect(out.contains("<style> .ok &gt; rect { fill: url(#g); stroke: red } </style>"))
}

@Test func commentsAndProcessingInstructionsDropped() throws {
    let out = try sanitize("""
    <?xml-stylesheet href="http://127.0.0.1/s.css"?><!-- hidden --><svg xmlns="http://www.w3.org/2000/svg">\
    <?php echo 1 ?><!-- <script>alert(1)</script> --><g/></svg>
    """)
    #expect(out == "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"><g/></svg>")
}

// MARK: - Entities and DTDs

@Test func billionLaughsRefusedBeforeParsing() {
    var result: SVGSanitizer.Failure?
    result = failure(billionLaughs)
    #expect(result?.kind == .dtd)
    #expect(result?.reason == "the SVG declares a DTD (entities are not allowed)")
}

@Test func billionLaughsRefusedByParserWithoutPrecheck() {
    // Defence in depth: even if the byte check were bypassed, the parser must
    // not expand the entities.
    var result: SVGSanitizer.Failure?
    result = failure(billionLaughs, precheck: false)
    #expect(result != nil)
}

@Test func xxeFileRefused() throws {
    for doc in [xxe("file:///etc/passwd"), xxe("/etc/passwd")] {
        let f = failure(doc)
        #expect(f?.kind == .dtd)
        #expect(f.map { !$0.reason.contains(passwdMarker) } ?? false)
        // Without the byte check the parser may accept it, but must not read the file.
        do {
            let out = try SVGSanitizer.sanitize(Data(doc.utf8), maxDepth: 256, maxBytes: limit, precheck: false).data
            #expect(!String(decoding: out, as: UTF8.self).contains(passwdMarker))
        } catch {
            #expect(!error.reason.contains(passwdMarker))
        }
    }
}

@Test func xxeLoopbackRefusedWithoutConnecting() throws {
    #expect(failure(xxe("http://127.0.0.1:1/"))?.kind == .dtd)
    let listener = Listener()
    let url = "http://127.0.0.1:\(listener.port)/x"
    #expect(failure(xxe(url))?.kind == .dtd)
    _ = failure(xxe(url), precheck: false)
    // Parameter entity and external DTD subset variants.
    _ = failure("""
    <!DOCTYPE svg [ <!ENTITY % p SYSTEM "\(url)"> %p; ]><svg xmlns="http://www.w3.org/2000/svg"/>
    """, precheck: false)
    let externalDTD = """
    <!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "\(url)"><svg xmlns="http://www.w3.org/2000/svg"><g/></svg>
    """
    // A DOCTYPE naming an external DTD is accepted but never loaded, and dropped.
    let out = try sanitize(externalDTD)
    #expect(!out.contains("DOCTYPE"))
    #expect(out.contains("<g/>"))
    #expect(!listener.wasConnected())
}

@Test func internalSubsetRefused() {
    let f = failure("""
    <!DOCTYPE svg [ <!ATTLIST svg onload CDATA "alert(1)"> ]><svg xmlns="http://www.w3.org/2000/svg"/>
    """)
    #expect(f?.kind == .dtd)
    #expect(f?.reason.contains("internal subset") == true)
}

@Test func undefinedEntityRefused() {
    let f = failure(#"<svg xmlns="http://www.w3.org/2000/svg"><text>&nope;</text></svg>"#)
    #expect(f?.kind == .notWellFormed)
}

@Test func nonUTF8EncodingsRefused() {
    let utf7 = #"<?xml version="1.0" encoding="UTF-7"?><svg xmlns="http://www.w3.org/2000/svg"/>"#
    #expect(failure(utf7)?.kind == .unsupportedEncoding)
    var utf16 = Data([0xFF, 0xFE])
    utf16.append(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.data(using: .utf16LittleEndian)!)
    #expect(throws: SVGSanitizer.Failure.self) { try SVGSanitizer.sanitized(utf16, maxBytes: limit) }
    // Latin-1 is ASCII-compatible and decoded by the parser.
    let latin1 = #"<?xml version="1.0" encoding="ISO-8859-1"?><svg xmlns="http://www.w3.org/2000/svg"><text>caf"#
    var bytes = Data(latin1.utf8); bytes.append(0xE9); bytes.append(Data("</text></svg>".utf8))
    let out = try? SVGSanitizer.sanitized(bytes, maxBytes: limit)
    #expect(out.map { String(decoding: $0, as: UTF8.self).contains("café") } == true)
}

// MARK: - Structure

@Test func deepNestingRefused() {
    let n = 10_000
    let doc = #"<svg xmlns="http://www.w3.org/2000/svg">"# + String(repeating: "<g>", count: n)
        + String(repeating: "</g>", count: n) + "</svg>"
    var f: SVGSanitizer.Failure?
    f = failure(doc)
    #expect(f?.kind == .tooDeep)
    #expect(f?.reason == "the SVG nests elements deeper than 256")
    // A smaller limit is enforced by the sanitizer itself.
    #expect(failure(doc, maxDepth: 10)?.reason == "the SVG nests elements deeper than 10")
    // The push parser has no depth limit of its own: only maxDepth protects.
    var deepResult: SVGSanitizer.Failure?
    deepResult = failure(doc, maxDepth: 100_000)
    #expect(deepResult == nil)
    // Exactly at the limit is fine.
    let ok = #"<svg xmlns="http://www.w3.org/2000/svg">"# + String(repeating: "<g>", count: 255)
        + String(repeating: "</g>", count: 255) + "</svg>"
    #expect(failure(ok) == nil)
}

@Test func nonSVGRootRefused() {
    let f = failure(#"<html xmlns="http://www.w3.org/1999/xhtml"><svg/></html>"#)
    #expect(f?.kind == .notSVG)
    #expect(f?.reason == "the document's root is <html>, not <svg>")
    #expect(failure(#"<svg xmlns="http://www.w3.org/1999/xhtml"/>"#)?.kind == .notSVG)
    // Prefixed SVG root is fine, and the prefix survives.
    let out = try? sanitize(#"<s:svg xmlns:s="http://www.w3.org/2000/svg"><s:rect/></s:svg>"#)
    #expect(out?.contains("<s:svg xmlns:s=\"http://www.w3.org/2000/svg\"><s:rect/></s:svg>") == true)
}

@Test func notWellFormedRefusedWithMessage() {
    let f = failure("<svg xmlns=\"http://www.w3.org/2000/svg\">\n<g>\n</svg>")
    #expect(f?.kind == .notWellFormed)
    #expect(f?.reason.hasPrefix("the SVG is not well-formed XML: ") == true)
    #expect(f?.reason.contains("at line 3") == true)
    for bad in ["", "   ", "<svg", "<svg></svg><svg></svg>", "<svg a='1' a='2'/>", "not xml", "<x:svg/>"] {
        let f = failure(bad)
        #expect(f?.kind == .notWellFormed, "\(bad.debugDescription)")
    }
}

@Test func tooLargeRefused() {
    let doc = Data(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8)
    #expect(throws: SVGSanitizer.Failure(.tooLarge, "the SVG is \(doc.count) bytes, more than the limit of 10")) {
        try SVGSanitizer.sanitized(doc, maxBytes: 10)
    }
}

@Test func textEscapingSurvives() throws {
    let input = """
    <svg xmlns="http://www.w3.org/2000/svg"><text title="a &quot;b&quot; &amp; &lt;c&gt;&#10;d">1 &lt; 2 &amp;&amp; 3 &gt; 2 <![CDATA[<b>&amp;</b>]]></text></svg>
    """
    let out = try sanitize(input)
    #expect(out.contains("1 &lt; 2 &amp;&amp; 3 &gt; 2 &lt;b&gt;&amp;amp;&lt;/b&gt;"))
    #expect(out.contains("title=\"a &quot;b&quot; &amp; &lt;c&gt;&#10;d\""))
    let c = try #require(collect(out))
    #expect(c.text == "1 < 2 && 3 > 2 <b>&amp;</b>")
    #expect(c.elements.last?.attrs["title"] == "a \"b\" & <c>\nd")
}

    /// Review findings: each DOCTYPE is scanned once; an embedded image
    /// librsvg would hand to another decoder (SVG among them) is removed.
    @Test func manyDoctypesAreScannedOnceAndEmbeddedVectorsRemoved() throws {
        let many = "<svg xmlns=\"http://www.w3.org/2000/svg\">" + String(repeating: "<!DOCTYPE", count: 20_000) + ">"
        #expect(failure(many) != nil)
        let out = try sanitize(#"<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/vnd.adobe.svg+xml;base64,PHN2Zy8+"/><image href="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAAAAAA"/></svg>"#)
        #expect(!out.contains("vnd.adobe") && out.contains("data:image/png;base64"))
    }
}
