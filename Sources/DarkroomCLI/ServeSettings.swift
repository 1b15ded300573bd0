import ArgumentParser
import DarkroomServer

/// One setting of `darkroom serve`, declared once: its flag, the variables
/// it reads (`DARKROOM_*`), the `IMGPROXY_*` names read as it unchanged,
/// the range of a whole number, its help, and how it is read into the
/// configuration. `--help`, the range checks, the imgproxy environment,
/// the configuration and docs/settings.md are made from it.
struct ServeSetting: Sendable {
    /// The flag, without `--`; nil for a setting read from its variable only.
    let flag: String?
    let help: String
    /// The variables, as the help names them ("DARKROOM_KEY, comma-separated").
    let variables: String
    /// The value's name in `--help`.
    let value: String?
    /// A whole number's range (`Int.max`: no upper bound).
    let range: ClosedRange<Int>?
    /// imgproxy's names (without `IMGPROXY_`) for the same setting.
    let imgproxy: [String]
    /// Reads the flag, else its variable, into the configuration; nil for a
    /// setting another one reads with its own (`--salt` with `--key`).
    let read: (@Sendable (SettingInput, inout ServerConfiguration) throws -> Void)?

    init(_ flag: String?, _ help: String, _ variables: String, value: String? = nil, range: ClosedRange<Int>? = nil, imgproxy: [String] = [],
         read: (@Sendable (SettingInput, inout ServerConfiguration) throws -> Void)? = nil) {
        (self.flag, self.help, self.variables, self.value, self.range, self.imgproxy) = (flag, help, variables, value, range, imgproxy)
        self.read = read
    }

    /// The variable's name without `DARKROOM_`.
    var variable: String {
        let name = variables.split(separator: ",").first.map(String.init) ?? variables
        return String(name.dropFirst("DARKROOM_".count))
    }
}

extension ArgumentHelp {
    /// A `serve` flag's help, from its setting.
    static func setting(_ flag: String) -> ArgumentHelp {
        let setting = ServeSettings.named(flag)
        return ArgumentHelp("\(setting.help) [\(setting.variables)]", valueName: setting.value)
    }
}

enum ServeSettings {
    /// The setting of `flag`; every flag `serve` has is here.
    static func named(_ flag: String) -> ServeSetting {
        guard let setting = byFlag[flag] else { preconditionFailure("no serve setting --\(flag)") }
        return setting
    }

    static let byFlag = Dictionary(uniqueKeysWithValues: all.compactMap { setting in setting.flag.map { ($0, setting) } })

    /// Each imgproxy name read unchanged, and the variable it stands for.
    static let imgproxyNames: [String: String] = {
        var names: [String: String] = [:]
        for setting in all {
            // A name the setting reads as its own variable too stays
            // itself; any other stands for the setting's first variable.
            let own = Set(setting.variables.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            for name in setting.imgproxy { names[name] = own.contains("DARKROOM_\(name)") ? name : setting.variable }
        }
        return names
    }()

    /// Every setting, in the order they are read (a setting may use one read before it).
    static let all: [ServeSetting] = serving + sources + decoding + network + stores + output
}

extension ServeSettings {
    /// docs/settings.md: every setting, made from the table (a test fails
    /// when the page is out of date).
    static var markdown: String {
        func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
        var lines = [
            "# Settings of `darkroom serve`",
            "",
            "Made from the server's table of settings (`ServeSettings`); `darkroom serve --help` says the same.",
            "Each setting is a flag, or the variable named after it; a flag wins over its variable.",
            "An imgproxy deployment's `IMGPROXY_*` names in the third column are read as the setting;",
            "[Moving from imgproxy](imgproxy.md) lists the ones read with a change of unit or meaning.",
            "",
            "| Flag | Variable | imgproxy | What it does |",
            "|---|---|---|---|",
        ]
        for setting in all {
            let flag = setting.flag.map { "`--\($0)`" + (setting.value.map { " \(cell($0))" } ?? "") } ?? ""
            let range = setting.range.map { " Range: \($0.lowerBound)" + ($0.upperBound == .max ? " and up." : " to \($0.upperBound).") } ?? ""
            let imgproxy = setting.imgproxy.map { "`IMGPROXY_\($0)`" }.joined(separator: ", ")
            lines.append("| \(flag) | \(cell(setting.variables)) | \(imgproxy) | \(cell(setting.help))\(range) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
