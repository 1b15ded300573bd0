import ArgumentParser
import DarkroomServer

/// What a setting is read from: the command line as parsed, and the
/// environment with imgproxy's names read as Darkroom's (``ImgproxyEnvironment``).
/// A flag's value is read through it by name (`input.maxSourceBytes`).
@dynamicMemberLookup
struct SettingInput {
    let command: ServeCommand
    let environment: [String: String]

    subscript<T>(dynamicMember path: KeyPath<ServeCommand, T>) -> T { command[keyPath: path] }

    /// `DARKROOM_NAME`, where set and not empty.
    func env(_ name: String) -> String? { environment["DARKROOM_\(name)"].flatMap { $0.isEmpty ? nil : $0 } }

    /// `DARKROOM_NAME` as 1, true or yes; anything else is off.
    func envFlag(_ name: String) -> Bool { ["1", "true", "yes"].contains(env(name)?.lowercased() ?? "") }

    /// A switch: the flag, else `DARKROOM_NAME` as true or false (refused otherwise).
    func flag(_ given: Bool, _ name: String) throws -> Bool {
        try given || env(name).map { try ServeCommand.boolean($0, "DARKROOM_\(name)") } ?? false
    }

    /// The flag, else its variable, within its setting's range
    /// (``ServeSettings``); out of it, refused naming the flag or the
    /// variable, whichever gave it.
    func number(_ flag: Int?, _ option: String) throws -> Int? {
        let setting = ServeSettings.named(option)
        let range = setting.range ?? 0...Int.max
        let value: Int
        if let flag {
            guard flag >= range.lowerBound else { throw ValidationError("--\(option) must be at least \(range.lowerBound)") }
            value = flag
        } else {
            guard let text = env(setting.variable) else { return nil }
            guard let number = Int(text), number >= range.lowerBound else {
                throw ValidationError("DARKROOM_\(setting.variable)=\(text): expected a whole number of at least \(range.lowerBound)")
            }
            value = number
        }
        guard value <= range.upperBound else { throw ValidationError("--\(option) \(value) is over \(range.upperBound)") }
        return value
    }

    /// The environment S3's credentials are read from: the store's region
    /// where set apart from them (imgproxy's `IMGPROXY_S3_REGION`).
    var s3Environment: [String: String] {
        var s3 = environment
        if let region = env("S3_REGION") { s3["AWS_REGION"] = region }
        return s3
    }
}
