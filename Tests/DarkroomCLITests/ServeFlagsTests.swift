@testable import DarkroomCLI
import Darkroom
import DarkroomServer
import Foundation
import Testing
import TestSupport

@Suite struct ServeFlagsTests {
    func configuration(_ arguments: [String], environment: [String: String] = [:]) throws -> ServerConfiguration {
        try ServeCommand.parse(arguments).serverConfiguration(environment: environment)
    }

    @Test func memoryCacheWorkersAndAccessLog() throws {
        let c = try configuration(["--memory-cache-mb", "64", "--workers", "3", "--access-log"])
        #expect(c.memoryCacheBytes == 64 << 20)
        #expect(c.filtrationConcurrency == 3)
        #expect(c.accessLog)

        let fromEnvironment = try configuration([], environment: ["DARKROOM_MEMORY_CACHE_MB": "8", "DARKROOM_WORKERS": "1", "DARKROOM_ACCESS_LOG": "true"])
        #expect(fromEnvironment.memoryCacheBytes == 8 << 20)
        #expect(fromEnvironment.filtrationConcurrency == 1)
        #expect(fromEnvironment.accessLog)

        let defaults = try configuration([])
        #expect(defaults.memoryCacheBytes == nil)
        #expect(!defaults.accessLog)
        // A flag wins over the variable.
        #expect(try configuration(["--workers", "2"], environment: ["DARKROOM_WORKERS": "5"]).filtrationConcurrency == 2)
    }

    @Test func sourceMinUses() throws {
        #expect(try configuration([]).sourceMinUses == 2)
        #expect(try configuration(["--source-min-uses", "1"]).sourceMinUses == 1)
        #expect(try configuration([], environment: ["DARKROOM_SOURCE_MIN_USES": "3"]).sourceMinUses == 3)
    }

    @Test func outOfRangeNumbersAreRefusedByName() throws {
        for (arguments, environment, word) in [
            (["--memory-cache-mb", "-1"], [:], "memory-cache-mb"),
            (["--memory-cache-mb", "99999999999"], [:], "memory-cache-mb"),
            (["--workers", "0"], [:], "workers"),
            (["--workers", "100000"], [:], "workers"),
            ([], ["DARKROOM_WORKERS": "NaN"], "DARKROOM_WORKERS"),
            ([], ["DARKROOM_MEMORY_CACHE_MB": "1e300"], "DARKROOM_MEMORY_CACHE_MB"),
            (["--max-result-dimension", "0"], [:], "max-result-dimension"),
            (["--max-result-dimension", "1000000"], [:], "max-result-dimension"),
            (["--max-processing-seconds", "0"], [:], "max-processing-seconds"),
            ([], ["DARKROOM_MAX_PROCESSING_SECONDS": "NaN"], "DARKROOM_MAX_PROCESSING_SECONDS"),
            (["--source-min-uses", "0"], [:], "source-min-uses"),
            (["--source-min-uses", "5000"], [:], "source-min-uses"),
            ([], ["DARKROOM_SOURCE_MIN_USES": "-1"], "DARKROOM_SOURCE_MIN_USES"),
            (["--max-jpeg-scans", "0"], [:], "max-jpeg-scans"),
            (["--max-jpeg-scans", "10001"], [:], "max-jpeg-scans"),
            ([], ["DARKROOM_MAX_JPEG_SCANS": "1e9"], "DARKROOM_MAX_JPEG_SCANS"),
            (["--max-request-memory-mb", "8"], [:], "max-request-memory-mb"),
            (["--max-request-memory-mb", "9999999"], [:], "max-request-memory-mb"),
            ([], ["DARKROOM_MAX_REQUEST_MEMORY_MB": "-5"], "DARKROOM_MAX_REQUEST_MEMORY_MB"),
        ] as [([String], [String: String], String)] {
            do {
                _ = try configuration(arguments, environment: environment)
                Issue.record("\(arguments) \(environment) was accepted")
            } catch {
                #expect("\(error)".contains(word), "\(error)")
            }
        }
    }

    /// As a user meets them: `darkroom serve` with the bad number, as a
    /// flag or in the environment, exits with status 2 and says which.
    /// (An address no server can take makes a wrongly accepted number end
    /// the run too, with another status, rather than serve.)
    @Test(arguments: [
        (["--workers", "0"], [:]), (["--max-jpeg-scans", "10001"], [:]), (["--max-request-memory-mb", "8"], [:]),
        (["--port", "70000"], [:]), ([], ["DARKROOM_MAX_PROCESSING_SECONDS": "NaN"]), ([], ["DARKROOM_MEMORY_CACHE_MB": "1e300"]),
    ] as [([String], [String: String])])
    func outOfRangeNumbersExitWithStatusTwo(arguments: [String], environment: [String: String]) async throws {
        let run = try await DarkroomProcess.run(["serve", "--host", "300.300.300.300"] + arguments, environment: environment)
        #expect(run.status == 2, "\(arguments) \(environment): \(run.status) \(run.stderr)")
        let named = arguments.first.map { String($0.dropFirst(2)) } ?? environment.keys.first ?? ""
        #expect(run.stderr.contains(named), "\(run.stderr)")
    }

    @Test func scanAndMemoryLimits() throws {
        let defaults = try configuration([])
        #expect(defaults.limits.maxJPEGScans == 100)
        #expect(defaults.limits.maxDecodeMemory == ImageLimits.defaultDecodeMemory)
        let flags = try configuration(["--max-jpeg-scans", "40", "--max-request-memory-mb", "96"])
        #expect(flags.limits.maxJPEGScans == 40 && flags.limits.maxDecodeMemory == 96 << 20)
        let environment = try configuration([], environment: ["DARKROOM_MAX_JPEG_SCANS": "12", "DARKROOM_MAX_REQUEST_MEMORY_MB": "64"])
        #expect(environment.limits.maxJPEGScans == 12 && environment.limits.maxDecodeMemory == 64 << 20)
    }

    @Test func keyRotationSignatureSizeAndPresetsOnly() throws {
        let pairs = try configuration(["--key", "6b31", "--salt", "7331", "--key", "6b32", "--salt", "7332", "--signature-size", "8"])
        #expect(pairs.signatures.map(\.key) == [[0x6b, 0x31], [0x6b, 0x32]])
        #expect(pairs.signatures.map(\.salt) == [[0x73, 0x31], [0x73, 0x32]])
        #expect(pairs.signatures.allSatisfy { $0.size == 8 })
        let fromEnvironment = try configuration([], environment: ["DARKROOM_KEY": "6b31,6b32", "DARKROOM_SALT": "7331", "DARKROOM_SIGNATURE_SIZE": "16"])
        #expect(fromEnvironment.signatures.count == 2 && fromEnvironment.signatures.allSatisfy { $0.salt == [0x73, 0x31] && $0.size == 16 })
        #expect(try configuration([]).signatures.isEmpty)
        for (arguments, word) in [
            (["--key", "6b31", "--key", "6b32", "--salt", "01", "--salt", "02", "--salt", "03"], "pair"),
            (["--salt", "7331"], "pair"),
            (["--key", "6b31", "--signature-size", "33"], "signature-size"),
            (["--key", "6b31", "--signature-size", "0"], "signature-size"),
            (["--signature-size", "8"], "signature-size"),
            (["--key", "xyz"], "hex"),
            (["--only-presets"], "only-presets"),
        ] {
            #expect(throws: (any Error).self, "\(arguments)") { try configuration(arguments) }
            do { _ = try configuration(arguments) } catch { #expect("\(error)".contains(word), "\(arguments): \(error)") }
        }
        let only = try configuration(["--only-presets", "--preset", "thumb=rs:fill:100:100"])
        #expect(only.onlyPresets && only.presets == ["thumb": "rs:fill:100:100"])
    }

    @Test func watermarkAndFallbackFilesAreReadAndChecked() async throws {
        let mark = try await ServeCommand.imageFile(at: Fixtures.url("alpha.png").path, flag: "--watermark")
        #expect(mark == (try Data(contentsOf: Fixtures.url("alpha.png"))))
        await #expect(throws: (any Error).self) { try await ServeCommand.imageFile(at: Fixtures.url("page.html").path, flag: "--fallback-image") }
        await #expect(throws: (any Error).self) { try await ServeCommand.imageFile(at: "/nonexistent/mark.png", flag: "--watermark") }
    }

    @Test func resultSizeAndProcessingTimeLimits() throws {
        let defaults = try configuration([])
        #expect(defaults.limits.maxResultDimension == 8192)
        #expect(defaults.limits.maxProcessingTime == .seconds(20))
        let c = try configuration(["--max-result-dimension", "4000", "--max-processing-seconds", "5"])
        #expect(c.limits.maxResultDimension == 4000)
        #expect(c.limits.maxProcessingTime == .seconds(5))
        let e = try configuration([], environment: ["DARKROOM_MAX_RESULT_DIMENSION": "2000", "DARKROOM_MAX_PROCESSING_SECONDS": "9"])
        #expect(e.limits.maxResultDimension == 2000 && e.limits.maxProcessingTime == .seconds(9))
    }

    @Test func theDefaultMemoryCacheFitsTheMachine() {
        let bytes = ImagePipeline.Configuration.defaultMemoryCacheBytes
        #expect(bytes >= 16 << 20 && bytes <= 256 << 20)
        #expect(ImagePipeline.Configuration().memoryCache.costLimit == bytes)
    }
}
