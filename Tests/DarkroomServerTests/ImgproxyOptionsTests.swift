import Darkroom
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
        for (route, own, read) in [(URLOption.Route.processing, processing, processing.union(Self.readFirst)),
                                   (.info, info, info.union(processing).union(Self.readFirst))] {
            let table = Set(URLOptions.all.filter { $0.route == route }.flatMap(\.names))
            #expect(table.subtracting(read).isEmpty, "\(route): in the table, not read: \(table.subtracting(read).sorted())")
            #expect(own.subtracting(table).isEmpty, "\(route): read, not in the table: \(own.subtracting(table).sorted())")
        }
        // imgproxy's documentation: 87 processing options, 34 for /info.
        #expect(URLOptions.imgproxy.filter { $0.route == .processing }.count == 87)
        #expect(URLOptions.imgproxy.filter { $0.route == .info }.count == 34)
    }

    /// Each test the table names is a test function of that suite.
    @Test func everyTestNamedExists() throws {
        let folder = Corpus.packageRoot.appendingPathComponent("Tests")
        var sources = ""
        let files = FileManager.default.enumerator(atPath: folder.path)
        while let file = files?.nextObject() as? String {
            if file.hasSuffix(".swift") { sources += try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) + "\n" }
        }
        for option in URLOptions.all {
            guard let test = option.test else { continue }
            let parts = test.split(separator: ".")
            #expect(parts.count == 2 && sources.contains("struct \(parts[0])") && sources.contains("func \(parts.last ?? "")("),
                    "\(option.names[0]): no test \(test)")
        }
    }

    @Test func thePageIsUpToDate() throws {
        let page = Corpus.packageRoot.appendingPathComponent("docs/imgproxy-options.md")
        if ProcessInfo.processInfo.environment["DARKROOM_RECORD_DOCS"] == "1" {
            try URLOptions.markdown.write(to: page, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: page, encoding: .utf8) == URLOptions.markdown,
                "docs/imgproxy-options.md is out of date: run the test with DARKROOM_RECORD_DOCS=1")
    }
}

/// Each range a URL option's number is held to is written once, as a named
/// constant (``StepRanges``, which the command line and the run check too,
/// or ``URLRanges``), and the option's declaration names the same ones.
@Suite struct URLOptionRangesTests {
    /// Files whose rules read the options' numbers.
    static let ruleFiles = ["ImageURLOptions+Parsing", "ImageURLOptions+Colour", "ImageURLOptions+Encoder", "ImageURLOptions+Objects",
                            "ImageURLOptions+Pro", "InfoURL", "ImageURLArguments", "AutoqualityOverride"]

    @Test func noRuleWritesARangeOfItsOwn() throws {
        let folder = Corpus.packageRoot.appendingPathComponent("Sources/DarkroomServer/ImageURLs")
        let literal = try Regex(#"(^|[^\w.])-?\d[\d_]*(\.\d+)?\.\.\.-?\d"#)
        var found: [String] = []
        for file in Self.ruleFiles {
            let text = try String(contentsOf: folder.appendingPathComponent(file + ".swift"), encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.components(separatedBy: "//").first ?? ""
                // Argument counts are not numbers from the URL.
                if code.contains("need(") || code.contains(".count)") { continue }
                if code.contains(literal) { found.append("\(file).swift:\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
            }
        }
        #expect(found.isEmpty, "ranges written in a rule, not named once: \(found.joined(separator: "\n"))")
    }

    /// The ranges the page gives are the ones the parser enforces: one past
    /// each end of every range declared for a single-argument option is
    /// refused, and each end is taken.
    @Test func theDeclaredRangesAreTheParsersOwn() throws {
        var checked = 0
        for option in URLOptions.all where option.route == .processing && option.ranges.count == 1 && !option.arguments.contains(":")
            && !option.arguments.contains(" or ") {
            let range = option.ranges[0], name = option.names[0]
            guard !range.above else { continue }
            let (low, high) = (range.lower, range.upper)
            var context = ImageURLOptions.Context()
            context.allowsSecurityOptions = true
            func parses(_ value: Double) -> Bool {
                var options = ImageURLOptions()
                return (try? options.apply("\(name):\(StepRanges.text(value))", context: context, using: [])) != nil
            }
            #expect(parses(high), "\(name): \(high) is in its range \(range) but refused")
            #expect(!parses(high + 1), "\(name): \(high + 1) is past its range \(range) but taken")
            if low != 0, !range.argument.contains("or 0") {
                #expect(!parses(low - 1), "\(name): \(low - 1) is below its range \(range) but taken")
            }
            checked += 1
        }
        #expect(checked >= 15, "only \(checked) options checked")
    }
}
