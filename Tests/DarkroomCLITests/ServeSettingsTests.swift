@testable import DarkroomCLI
import Foundation
import Testing
import TestSupport

/// The table of `serve`'s settings is the one place each is declared: the
/// flags ArgumentParser knows, the variables the configuration reads, the
/// imgproxy names and the settings page all agree with it.
@Suite struct ServeSettingsTests {
    /// The long flags `serve --help` lists.
    static var helpFlags: Set<String> {
        let help = ServeCommand.helpMessage(columns: 10_000)
        return Set(help.matches(of: try! Regex(#"--[a-z0-9][a-z0-9-]*"#)).map { String(help[$0.range].dropFirst(2)) })
    }

    @Test func everyFlagOfServeIsInTheTableAndNoOther() {
        let table = Set(ServeSettings.all.compactMap(\.flag))
        // --help, and the inversions ArgumentParser makes of two flags.
        let help = Self.helpFlags.subtracting(["help", "no-svg-render", "no-last-modified"])
        // Flags named inside other flags' help are listed too: each must be a flag.
        #expect(help.subtracting(table).isEmpty, "flags not in the table: \(help.subtracting(table).sorted())")
        #expect(table.subtracting(help).isEmpty, "table rows with no flag: \(table.subtracting(help).sorted())")
        #expect(table.count == ServeSettings.all.filter { $0.flag != nil }.count, "a flag declared twice")
    }

    /// Every `DARKROOM_*` variable the configuration code reads is a row's.
    @Test func everyVariableTheServerReadsIsInTheTable() throws {
        let folder = Corpus.packageRoot.appendingPathComponent("Sources/DarkroomCLI")
        var read: Set<String> = []
        for file in try FileManager.default.contentsOfDirectory(atPath: folder.path) where file.hasPrefix("ServeCommand") || file.hasPrefix("ServeSettings") {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            // env("NAME"), envFlag("NAME") and a switch's flag(given, "NAME").
            for match in text.matches(of: try Regex(#"(?:env(?:Flag)?\(|flag\([^,()]*, )"([A-Z0-9_]+)"\)"#)) {
                read.insert("DARKROOM_" + String(text[match.range]).split(separator: "\"")[1])
            }
        }
        let declared = Set(ServeSettings.all.flatMap { $0.variables.matches(of: try! Regex(#"DARKROOM_[A-Z0-9_]+"#)).map { String($0.output[0].substring ?? "") } })
        // The encoder's settings are each read by their own name.
        let encoder = Set(ServeCommand.encoderSettingNames.map { "DARKROOM_\($0)" })
        #expect(read.count > 40)
        #expect(read.subtracting(declared).subtracting(encoder).isEmpty, "read but not in the table: \(read.subtracting(declared).subtracting(encoder).sorted())")
    }

    /// Every setting reads itself into the configuration, but those read
    /// with another (a key's salt, the PDF child's limits with `--pdf`, the
    /// watermark files when the server starts): a new setting with no
    /// reader fails here.
    @Test func everySettingIsReadByTheTable() {
        let readElsewhere: Set<String> = [
            "salt", "signature-size", "pdf-max-memory-mb", "pdf-no-background", "video-thumbnail-second", "video-thumbnail-keyframes",
            "video-thumbnail-probe-size", "video-max-memory-mb", "cookie-passthrough-all", "cookie-base-url", "result-cache-timeout",
            "s3-endpoint", "source-cache", "watermark", "fallback-image", "autoquality-format-min", "autoquality-format-max",
            "S3_REGION", "ENFORCE_WEBP",
        ]
        let unread = Set(ServeSettings.all.filter { $0.read == nil }.map { $0.flag ?? $0.variable })
        #expect(unread == readElsewhere, "settings no one reads: \(unread.subtracting(readElsewhere).sorted())")
    }

    @Test func imgproxysNamesStandForTheirSettings() throws {
        let environment = ["IMGPROXY_CONCURRENCY": "3", "IMGPROXY_TTL": "77", "IMGPROXY_AUTOQUALITY_METHOD": "size",
                           "IMGPROXY_AUTOQUALITY_TARGET": "20000", "IMGPROXY_S3_REGION": "eu-west-9", "IMGPROXY_AUTO_AVIF": "false"]
        let merged = ImgproxyEnvironment(environment).merged(into: environment)
        #expect(merged["DARKROOM_WORKERS"] == "3" && merged["DARKROOM_CACHE_MAX_AGE"] == "77")
        #expect(merged["DARKROOM_AUTOQUALITY_METHOD"] == "size" && merged["DARKROOM_AUTOQUALITY_TARGET"] == "20000")
        #expect(merged["DARKROOM_S3_REGION"] == "eu-west-9" && merged["DARKROOM_AUTO_AVIF"] == "false")
        let configuration = try ServeCommand.parse([]).serverConfiguration(environment: environment)
        #expect(configuration.filtrationConcurrency == 3 && configuration.cacheMaxAge == 77)
        let named = try ServeCommand.parse([]).serverConfiguration(environment: ["IMGPROXY_SERVER_NAME": "images"])
        #expect(named.serverName == "images")
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--server-name", "a\u{7}b"]).serverConfiguration(environment: [:]) }
        #expect(ImgproxyEnvironment(environment).unhonoured.isEmpty)
    }

    /// A range in the table is the one the flag and its variable are held to.
    @Test func aSettingsRangeIsTheOneChecked() throws {
        let setting = ServeSettings.named("max-redirects")
        #expect(setting.range == 0...20)
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--max-redirects", "21"]).serverConfiguration(environment: [:]) }
        #expect(throws: (any Error).self) { try ServeCommand.parse([]).serverConfiguration(environment: ["DARKROOM_MAX_REDIRECTS": "21"]) }
        #expect(try ServeCommand.parse(["--max-redirects", "20"]).serverConfiguration(environment: [:]).maxRedirects == 20)
    }

    @Test func theSettingsPageIsUpToDate() throws {
        let page = Corpus.packageRoot.appendingPathComponent("docs/settings.md")
        if ProcessInfo.processInfo.environment["DARKROOM_RECORD_DOCS"] == "1" {
            try ServeSettings.markdown.write(to: page, atomically: true, encoding: .utf8)
        }
        let written = try String(contentsOf: page, encoding: .utf8)
        #expect(written == ServeSettings.markdown, "docs/settings.md is out of date: run the test with DARKROOM_RECORD_DOCS=1")
    }

    @Test func skipFormatsAndTheFrameLimitAreRead() throws {
        let flags = try ServeCommand.parse(["--skip-processing-formats", "webp, png", "--max-animation-frame-resolution", "0.5"]).serverConfiguration(environment: [:])
        #expect(flags.encoder.skipProcessing == [.webp, .png] && flags.limits.maxAnimationFramePixels == 500_000)
        let imgproxy = try ServeCommand.parse([]).serverConfiguration(environment: ["IMGPROXY_SKIP_PROCESSING_FORMATS": "gif", "IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "2"])
        #expect(imgproxy.encoder.skipProcessing == [.gif] && imgproxy.limits.maxAnimationFramePixels == 2_000_000)
        #expect(throws: (any Error).self) { try ServeCommand.parse(["--skip-processing-formats", "pdf"]).serverConfiguration(environment: [:]) }
        // A fallback's status carries its image: none without a body.
        for code in ["100", "204", "304", "600"] {
            #expect(throws: (any Error).self, "\(code)") { try ServeCommand.parse(["--fallback-image-http-code", code]).serverConfiguration(environment: [:]) }
        }
        #expect(try ServeCommand.parse(["--fallback-image-http-code", "0"]).serverConfiguration(environment: [:]).fallbackImageStatus == 0)
    }
}
