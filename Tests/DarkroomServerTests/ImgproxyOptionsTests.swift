@testable import DarkroomServer
import Foundation
import Testing
import TestSupport

/// The table of imgproxy's options is whole and true: every name in it is
/// one the URL parsers read, every name they read is in it (or Darkroom's
/// own), every test it names exists, and the page made from it is current.
@Suite struct ImgproxyOptionsTests {
    /// Names read before the rule table: presets, the cache bypass and expiry.
    static let readFirst: Set<String> = ["pr", "preset", "bc", "bypass_cache", "exp", "expires"]

    @Test func theTableHasEveryOptionTheParsersReadAndNoOther() {
        let processing = Set(ImageURLOptions.rules.keys), info = Set(InfoURL.rules.keys)
        // /info reads its own options, then hands the rest to the image
        // options' parser (cb, vts, msr and the like).
        for (route, own, read) in [(ImgproxyOption.Route.processing, processing, processing.union(Self.readFirst)),
                                   (.info, info, info.union(processing).union(Self.readFirst))] {
            let table = Set(ImgproxyOptions.all.filter { $0.route == route }.flatMap(\.names))
            let extra = route == .processing ? Set(ImgproxyOptions.darkroomOwn.flatMap(\.names)) : []
            #expect(table.subtracting(read).isEmpty, "\(route): in the table, not read: \(table.subtracting(read).sorted())")
            #expect(own.subtracting(table).subtracting(extra).isEmpty, "\(route): read, not in the table: \(own.subtracting(table).subtracting(extra).sorted())")
        }
        // imgproxy's documentation: 87 processing options, 34 for /info.
        #expect(ImgproxyOptions.all.filter { $0.route == .processing }.count == 87)
        #expect(ImgproxyOptions.all.filter { $0.route == .info }.count == 34)
    }

    /// Each test the table names is a test function of that suite.
    @Test func everyTestNamedExists() throws {
        let folder = Corpus.packageRoot.appendingPathComponent("Tests")
        var sources = ""
        let files = FileManager.default.enumerator(atPath: folder.path)
        while let file = files?.nextObject() as? String {
            if file.hasSuffix(".swift") { sources += try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) + "\n" }
        }
        for option in ImgproxyOptions.all {
            guard let test = option.test else { continue }
            let parts = test.split(separator: ".")
            #expect(parts.count == 2 && sources.contains("struct \(parts[0])") && sources.contains("func \(parts.last ?? "")("),
                    "\(option.names[0]): no test \(test)")
        }
    }

    @Test func thePageIsUpToDate() throws {
        let page = Corpus.packageRoot.appendingPathComponent("docs/imgproxy-options.md")
        if ProcessInfo.processInfo.environment["DARKROOM_RECORD_DOCS"] == "1" {
            try ImgproxyOptions.markdown.write(to: page, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: page, encoding: .utf8) == ImgproxyOptions.markdown,
                "docs/imgproxy-options.md is out of date: run the test with DARKROOM_RECORD_DOCS=1")
    }
}
