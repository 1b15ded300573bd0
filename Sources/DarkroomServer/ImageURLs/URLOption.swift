import Darkroom

/// One URL option, declared once, beside the rule that reads it: its
/// names (imgproxy's, the long one first), the arguments it takes, the
/// ranges they are held to, what it costs the server, how Darkroom's answer
/// compares with imgproxy's, and the test that shows it. The parsers are
/// made from these declarations (``OptionRules``), and so are the pages of
/// options (docs/imgproxy-options.md); tests hold both to them.
package struct URLOption: Sendable {
    package enum Route: String, Sendable {
        case processing, info
    }

    package enum Edition: Sendable {
        case imgproxy, pro, darkroom
    }

    /// What the option asks of the server, from nothing to a second
    /// process: the reason some options have caps imgproxy does not.
    package enum Cost: String, Sendable, CaseIterable {
        case none = "no pixels: the answer's fields, the cache or a limit"
        case geometry = "sets the result's size and the decode's scale"
        case pixels = "one pass over the result's pixels"
        case kernel = "pixels times sigma, capped by the image's size"
        case encoder = "the encoder's work"
        case encodes = "encodes the result up to 8 times"
        case smallCopy = "one pass over a small copy of the image"
        case detector = "runs the face detector"
        case secondImage = "fetches and decodes a second image"
        case child = "drawn in the sandboxed child (PDF, SVG, video)"
    }

    /// Set by the table the option is added to.
    package internal(set) var route: Route = .processing
    package let names: [String]
    /// The arguments, as imgproxy's documentation writes them
    /// (`%width:%height`); " or " between forms.
    package let arguments: String
    /// Each numeric argument's range, as the rule holds it.
    package let ranges: [ArgumentRange]
    package let cost: Cost
    package let edition: Edition
    /// Where Darkroom's answer differs on purpose, to protect the server,
    /// and how; nil: as imgproxy's documentation says.
    package let difference: String?
    /// Where it differs for what this build has (a detector, a codec),
    /// and how.
    package let limit: String?
    /// Darkroom's own options: what it does.
    package let about: String?
    /// The test that shows it, as `Suite.function`.
    package let test: String?

    package var pro: Bool { edition == .pro }

    init(_ names: [String], _ arguments: String, _ ranges: ArgumentRange..., cost: Cost, pro: Bool = false, edition: Edition? = nil,
         difference: String? = nil, limit: String? = nil, about: String? = nil, test: String?) {
        (self.names, self.arguments, self.ranges, self.cost) = (names, arguments, ranges, cost)
        self.edition = edition ?? (pro ? .pro : .imgproxy)
        (self.difference, self.limit, self.about, self.test) = (difference, limit, about, test)
    }
}

/// A numeric argument's name and range, written from the constant the
/// rule checks it against.
package struct ArgumentRange: Sendable, CustomStringConvertible {
    package let argument: String
    package let lower: Double
    package let upper: Double
    /// Above `lower`, not from it.
    package let above: Bool

    init(_ argument: String, _ range: ClosedRange<Double>, above: Bool = false) {
        (self.argument, lower, upper, self.above) = (argument, range.lowerBound, range.upperBound, above)
    }

    init(_ argument: String, _ range: ClosedRange<Int>, above: Bool = false) {
        self.init(argument, Double(range.lowerBound)...Double(range.upperBound), above: above)
    }

    package var description: String { (above ? "above " : "") + StepRanges.text(lower...upper) }
}

/// One parser's options and their rules, by every name each is read by.
struct OptionRules<Target>: Sendable {
    typealias Rule = @Sendable (inout Target, inout ImageURLOptions.Arguments) throws(ImageURLError) -> Void

    let route: URLOption.Route
    private(set) var options: [URLOption] = []
    private(set) var rules: [String: Rule] = [:]

    init(route: URLOption.Route) { self.route = route }

    /// - Parameter readAs: the names the rule is under, where they are not
    ///   all of the option's (`co` is read by contrast's rule).
    mutating func add(_ option: URLOption, readAs names: [String]? = nil, rule: @escaping Rule) {
        declare(option)
        for name in names ?? option.names { rules[name] = rule }
    }

    /// An option read before the rules (presets, expiry, the cache bypass)
    /// or, for `/info`, by the image options' parser.
    mutating func declare(_ option: URLOption) {
        var option = option
        option.route = route
        options.append(option)
    }

    mutating func merge(_ other: Self) {
        options += other.options
        rules.merge(other.rules) { $1 }
    }
}

package enum URLOptions {
    /// Every option of both routes, in the parsers' order.
    package static var all: [URLOption] { ImageURLOptions.table.options + InfoURL.table.options }

    /// imgproxy's, open source and Pro.
    package static var imgproxy: [URLOption] { all.filter { $0.edition != .darkroom } }
}

extension URLOptions {
    /// docs/imgproxy-options.md, made from the declarations.
    package static var markdown: String {
        func names(_ option: URLOption) -> String { option.names.map { "`\($0)`" }.joined(separator: ", ") }
        func takes(_ option: URLOption) -> String {
            let forms = option.arguments.components(separatedBy: " or ").map { "`\($0)`" }.joined(separator: " or ")
            let ranges = option.ranges.map { "\($0.argument) \($0)" }.joined(separator: ", ")
            return ranges.isEmpty ? forms : "\(forms); \(ranges)"
        }
        func row(_ option: URLOption) -> String {
            let state = option.difference.map { "differs on purpose, to protect the server: \($0)" }
                ?? option.limit.map { "differs for what this build has: \($0)" } ?? "as imgproxy's documentation says"
            let test = option.test.map { "`\($0)`" } ?? "none yet"
            return "| \(names(option)) | \(takes(option)) | \(option.cost.rawValue) | \(option.pro ? "Pro (free here)" : "open source") | \(state) | \(test) |"
        }
        var lines = [
            "# URL options",
            "",
            "Every processing and `/info` option imgproxy documents, open-source and Pro, and Darkroom's own: the arguments each",
            "takes and their ranges, what it costs the server, how Darkroom reads it, and the test that shows the answer. Made",
            "from the declarations the URL parsers are built from (`URLOption`); a test fails when this page, the parsers or the",
            "tests named fall out of them. [Moving from imgproxy](imgproxy.md) maps the settings.",
            "",
        ]
        for route in [URLOption.Route.processing, .info] {
            let options = imgproxy.filter { $0.route == route }
            let deliberate = options.filter { $0.difference != nil }.count, limited = options.filter { $0.limit != nil }.count
            lines += [
                route == .processing ? "## Processing options" : "## `/info` options",
                "",
                "\(options.count) options (\(options.filter(\.pro).count) of them Pro's): \(options.count - deliberate - limited) as imgproxy's documentation says, \(deliberate) different on purpose to protect the server, \(limited) different for what this build has.",
                "",
                "| Names | Takes | Costs | Edition | In Darkroom | Test |",
                "|---|---|---|---|---|---|",
            ] + options.map(row) + [""]
        }
        lines += ["## Darkroom's own", "", "| Names | Takes | Costs | What it does |", "|---|---|---|---|"]
        lines += all.filter { $0.edition == .darkroom }.map { "| \(names($0)) | \(takes($0)) | \($0.cost.rawValue) | \($0.about ?? "") |" }
        return lines.joined(separator: "\n") + "\n"
    }
}
