import Darkroom
import DarkroomServer
import Foundation
import Testing
import TestSupport

/// docs/grafana-dashboard.json asks only for series the server exports.
@Suite struct DashboardTests {
    /// PromQL words that are not metric names.
    static let promQLWords: Set<String> = ["sum", "by", "without", "rate", "irate", "increase", "deriv", "histogram_quantile",
                                            "avg", "max", "min", "count", "le", "on", "ignoring", "group_left", "group_right",
                                            "and", "or", "unless", "offset"]

    /// The metric names a query reads: identifiers outside label matchers,
    /// range selectors and `by (...)` lists that are not functions.
    static func metricNames(in expression: String) -> Set<String> {
        var text = expression
        for pattern in [#"\{[^}]*\}"#, #"\[[^\]]*\]"#, #"\b(by|without|on|ignoring)\s*\([^)]*\)"#] {
            text = text.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        let identifier = try! Regex(#"[A-Za-z_:][A-Za-z0-9_:]*"#)
        var names = Set<String>()
        for match in text.matches(of: identifier) {
            let name = String(text[match.range])
            let rest = text[match.range.upperBound...].drop { $0 == " " }
            if rest.first == "(" || promQLWords.contains(name) { continue }
            names.insert(name)
        }
        return names
    }

    @Test func everyQueryNamesAMetricTheServerExports() async throws {
        let file = Corpus.packageRoot.appendingPathComponent("docs/grafana-dashboard.json")
        let dashboard = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let panels = try #require(dashboard["panels"] as? [[String: Any]])
        let expressions = panels.flatMap { ($0["targets"] as? [[String: Any]] ?? []).compactMap { $0["expr"] as? String } }
        #expect(expressions.count >= 10)
        #expect(Self.metricNames(in: "histogram_quantile(0.99, sum by (le) (rate(x_bucket{a=\"b\"}[5m]))) / y") == ["x_bucket", "y"])

        // A hit, a miss and a failed source, so that every series exists.
        try await RoutedServer.with { server in
            let image = "/img/_/rs:fit:64:64/plain/local:///photos/Aqua.jpg@jpg"
            #expect(try await server.get(image).status == .ok)
            #expect(try await server.get(image).status == .ok)
            #expect(try await server.get("/img/_/rs:fit:64:64/plain/local:///photos/none.jpg").status == .notFound)
            let text = String(decoding: try await server.get("/metrics").body, as: UTF8.self)
            let exported = Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(whereSeparator: { $0 == "{" || $0 == " " }).first.map(String.init)
            })
            for expression in expressions {
                let names = Self.metricNames(in: expression)
                #expect(!names.isEmpty, "\(expression)")
                for name in names {
                    #expect(exported.contains(name), "the dashboard asks for \(name), which /metrics does not have: \(expression)")
                }
            }
        }
    }
}
