/// Values read from a Prometheus text page (`/metrics`), by name and labels.
public struct PrometheusText: Sendable {
    public let text: String

    public init(_ text: String) {
        self.text = text
    }

    /// The value of the series `name` whose labels include every one of
    /// `labels`, summed over all series that match; nil when none does.
    public func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        var total: Double?
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let (series, value) = (line.split(separator: " ").first ?? "", line.split(separator: " ").last ?? "")
            let bare = series.split(separator: "{").first.map(String.init) ?? ""
            guard bare == name, let number = Double(value) else { continue }
            let labelText = series.drop { $0 != "{" }
            guard labels.allSatisfy({ labelText.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            total = (total ?? 0) + number
        }
        return total
    }
}
