@testable import DarkroomCLI
import Foundation
import Testing
import TestSupport

/// Every variable imgproxy documents, with what Darkroom reads it as: the
/// page docs/imgproxy-variables.md is made from Darkroom's own reader of an
/// imgproxy environment (``ImgproxyEnvironment``), so it cannot say more
/// than the server does.
@Suite struct ImgproxyVariablesTests {
    /// imgproxy's documented variables, in its order, with their sections.
    static func documented() throws -> [(section: String, name: String)] {
        let text = try String(contentsOf: Fixtures.folder.appendingPathComponent("imgproxy-variables.tsv"), encoding: .utf8)
        return text.split(separator: "\n").map { line in
            let parts = line.split(separator: "\t").map(String.init)
            return (parts[0], parts[1])
        }
    }

    /// What Darkroom makes of a variable: the `DARKROOM_*` settings it
    /// stands for with some usual value, or why it is not honoured.
    static func reading(_ name: String) -> (settings: [String], reason: String?) {
        var reason: String?
        for value in ["true", "1", "10", "127.0.0.1:8080", "json", "pretty"] {
            var environment = [name: value]
            // Private addresses are allowed only beside loopback ones, as in
            // imgproxy's own pairing; S3's buckets are read with USE_S3.
            var pairing: [String: String] = [:]
            if name.hasSuffix("_SOURCE_ADDRESSES") { pairing["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES"] = "true" }
            if name.hasPrefix("IMGPROXY_S3_"), name.hasSuffix("_BUCKETS") { pairing["IMGPROXY_USE_S3"] = "true" }
            environment.merge(pairing) { own, _ in own }
            let read = ImgproxyEnvironment(environment)
            // The settings this variable changes, not its pairing's.
            let paired = ImgproxyEnvironment(pairing).settings
            let own = read.settings.filter { paired[$0.key] != $0.value }
            if read.unhonoured.isEmpty { return (own.keys.sorted().map { "DARKROOM_\($0)" }, nil) }
            reason = reason ?? read.unhonoured.first.map { said in
                String(said.dropFirst(name.count).trimmingCharacters(in: CharacterSet(charactersIn: " ()")))
            }
        }
        return ([], reason)
    }

    static func markdown() throws -> String {
        let variables = try documented()
        let read = variables.filter { reading($0.name).reason == nil }.count
        var lines = [
            "# imgproxy's variables in Darkroom",
            "",
            "Every `IMGPROXY_*` variable imgproxy's configuration page documents, and what `darkroom serve` reads it as.",
            "Made by the tests from the server's own reader of an imgproxy environment, so it says what the server does:",
            "a variable read is honoured at start; one not read is named in one warning at start, never silently ignored.",
            "[settings.md](settings.md) describes each Darkroom setting; [Moving from imgproxy](imgproxy.md) the changes of unit or meaning.",
            "",
            "\(variables.count) variables: \(read) read, \(variables.count - read) not.",
        ]
        var section = ""
        for (heading, name) in variables {
            if heading != section {
                section = heading
                lines += ["", "## \(heading)", "", "| Variable | In Darkroom |", "|---|---|"]
            }
            let (settings, reason) = reading(name)
            let state = if let reason {
                "not read: \(reason)"
            } else if settings.isEmpty {
                "honoured: Darkroom does this always"
            } else {
                "read as " + settings.map { "`\($0)`" }.joined(separator: ", ")
            }
            lines.append("| `\(name)` | \(state.replacingOccurrences(of: "|", with: "\\|")) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// What an imgproxy deployment sets for format negotiation, S3,
    /// header fields, watermarks and fallbacks is all read.
    @Test func theVariablesADeploymentSetsAreRead() {
        let needed = ["AUTO_WEBP", "AUTO_AVIF", "AUTO_JXL", "ENFORCE_WEBP", "ENFORCE_AVIF", "ENFORCE_JXL", "USE_S3", "S3_ENDPOINT",
                      "S3_REGION", "CUSTOM_REQUEST_HEADERS", "CUSTOM_RESPONSE_HEADERS", "CUSTOM_HEADERS_SEPARATOR",
                      "REQUEST_HEADERS_PASSTHROUGH", "RESPONSE_HEADERS_PASSTHROUGH", "WATERMARK_DATA", "WATERMARK_PATH",
                      "WATERMARK_URL", "WATERMARK_OPACITY", "FALLBACK_IMAGE_DATA", "FALLBACK_IMAGE_PATH", "FALLBACK_IMAGE_URL",
                      "FALLBACK_IMAGE_HTTP_CODE", "FALLBACK_IMAGE_TTL", "PREFERRED_FORMATS", "SET_CANONICAL_HEADER",
                      "ENABLE_DEBUG_HEADERS", "RETURN_ATTACHMENT", "ENFORCE_THUMBNAIL", "S3_ALLOWED_BUCKETS", "S3_DENIED_BUCKETS",
                      "WATERMARK_PREPROCESS_URL", "FALLBACK_IMAGE_PREPROCESS_URL"]
        for name in needed {
            #expect(Self.reading("IMGPROXY_\(name)").reason == nil, "\(name): \(Self.reading("IMGPROXY_\(name)").reason ?? "")")
        }
        // A variable Darkroom has nothing for is said so.
        #expect(Self.reading("IMGPROXY_NEW_RELIC_KEY").reason?.contains("Prometheus /metrics") == true)
        #expect(Self.reading("IMGPROXY_CACHE_USE").reason?.contains("--result-cache") == true)
    }

    @Test func thePageIsUpToDate() throws {
        #expect(try Self.documented().count == 291)
        let page = Corpus.packageRoot.appendingPathComponent("docs/imgproxy-variables.md")
        if ProcessInfo.processInfo.environment["DARKROOM_RECORD_DOCS"] == "1" {
            try Self.markdown().write(to: page, atomically: true, encoding: .utf8)
        }
        #expect(try String(contentsOf: page, encoding: .utf8) == Self.markdown(),
                "docs/imgproxy-variables.md is out of date: run the test with DARKROOM_RECORD_DOCS=1")
    }
}
